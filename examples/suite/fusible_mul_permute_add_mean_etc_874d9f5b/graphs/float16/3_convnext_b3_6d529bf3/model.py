import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_parameters_layer_scale_parameter_: torch.nn.parameter.Parameter, L_self_modules_layernorm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_layernorm_parameters_bias_: torch.nn.parameter.Parameter, conv2d_6: torch.Tensor, linear_7: torch.Tensor):
        l_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_parameters_layer_scale_parameter_ = L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_parameters_layer_scale_parameter_
        l_self_modules_layernorm_parameters_weight_ = L_self_modules_layernorm_parameters_weight_
        l_self_modules_layernorm_parameters_bias_ = L_self_modules_layernorm_parameters_bias_
        mul_3 = l_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_parameters_layer_scale_parameter_ * linear_7;  l_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_parameters_layer_scale_parameter_ = linear_7 = None
        permute_15 = mul_3.permute(0, 3, 1, 2);  mul_3 = None
        add_3 = conv2d_6 + permute_15;  conv2d_6 = permute_15 = None
        mean = add_3.mean([-2, -1])
        layer_norm_8 = torch.nn.functional.layer_norm(mean, (128,), l_self_modules_layernorm_parameters_weight_, l_self_modules_layernorm_parameters_bias_, 1e-12);  mean = l_self_modules_layernorm_parameters_weight_ = l_self_modules_layernorm_parameters_bias_ = None
        return (add_3, layer_norm_8)
