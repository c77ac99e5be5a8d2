import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_decoder_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_decoder_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_: torch.nn.parameter.Parameter, add_1: torch.Tensor, dropout: torch.Tensor):
        l_self_modules_decoder_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_ = L_self_modules_decoder_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_
        l_self_modules_decoder_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_ = L_self_modules_decoder_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_
        add_2 = add_1 + dropout;  add_1 = dropout = None
        reshape_2 = add_2.reshape(-1, 128);  add_2 = None
        layer_norm_1 = torch.nn.functional.layer_norm(reshape_2, (128,), l_self_modules_decoder_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_, l_self_modules_decoder_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_, 1e-05);  l_self_modules_decoder_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_ = l_self_modules_decoder_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_ = None
        return (reshape_2, layer_norm_1)
