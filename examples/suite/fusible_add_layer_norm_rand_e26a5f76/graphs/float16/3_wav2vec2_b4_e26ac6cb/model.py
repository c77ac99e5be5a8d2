import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_: torch.nn.parameter.Parameter, layer_norm_2: torch.Tensor, dropout_4: torch.Tensor):
        l_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_ = L_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_
        l_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_ = L_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_
        add_4 = layer_norm_2 + dropout_4;  layer_norm_2 = dropout_4 = None
        layer_norm_3 = torch.nn.functional.layer_norm(add_4, (128,), l_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_, l_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_, 1e-05);  add_4 = l_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_ = l_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_ = None
        rand_1 = torch.rand([]);  rand_1 = None
        return (layer_norm_3,)
