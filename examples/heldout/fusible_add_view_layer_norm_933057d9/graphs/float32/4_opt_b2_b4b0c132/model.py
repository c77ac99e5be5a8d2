import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_decoder_modules_final_layer_norm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_decoder_modules_final_layer_norm_parameters_bias_: torch.nn.parameter.Parameter, reshape_5: torch.Tensor, dropout_3: torch.Tensor):
        l_self_modules_decoder_modules_final_layer_norm_parameters_weight_ = L_self_modules_decoder_modules_final_layer_norm_parameters_weight_
        l_self_modules_decoder_modules_final_layer_norm_parameters_bias_ = L_self_modules_decoder_modules_final_layer_norm_parameters_bias_
        add_5 = reshape_5 + dropout_3;  reshape_5 = dropout_3 = None
        view_8 = add_5.view((1, 16, 128));  add_5 = None
        layer_norm_4 = torch.nn.functional.layer_norm(view_8, (128,), l_self_modules_decoder_modules_final_layer_norm_parameters_weight_, l_self_modules_decoder_modules_final_layer_norm_parameters_bias_, 1e-05);  view_8 = l_self_modules_decoder_modules_final_layer_norm_parameters_weight_ = l_self_modules_decoder_modules_final_layer_norm_parameters_bias_ = None
        return (layer_norm_4,)
