import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_decoder_modules_layers_modules_1_modules_self_attn_layer_norm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_decoder_modules_layers_modules_1_modules_self_attn_layer_norm_parameters_bias_: torch.nn.parameter.Parameter, reshape_2: torch.Tensor, dropout_1: torch.Tensor):
        l_self_modules_decoder_modules_layers_modules_1_modules_self_attn_layer_norm_parameters_weight_ = L_self_modules_decoder_modules_layers_modules_1_modules_self_attn_layer_norm_parameters_weight_
        l_self_modules_decoder_modules_layers_modules_1_modules_self_attn_layer_norm_parameters_bias_ = L_self_modules_decoder_modules_layers_modules_1_modules_self_attn_layer_norm_parameters_bias_
        add_3 = reshape_2 + dropout_1;  reshape_2 = dropout_1 = None
        view_4 = add_3.view((2, 64, 128));  add_3 = None
        layer_norm_2 = torch.nn.functional.layer_norm(view_4, (128,), l_self_modules_decoder_modules_layers_modules_1_modules_self_attn_layer_norm_parameters_weight_, l_self_modules_decoder_modules_layers_modules_1_modules_self_attn_layer_norm_parameters_bias_, 1e-05);  l_self_modules_decoder_modules_layers_modules_1_modules_self_attn_layer_norm_parameters_weight_ = l_self_modules_decoder_modules_layers_modules_1_modules_self_attn_layer_norm_parameters_bias_ = None
        return (view_4, layer_norm_2)
