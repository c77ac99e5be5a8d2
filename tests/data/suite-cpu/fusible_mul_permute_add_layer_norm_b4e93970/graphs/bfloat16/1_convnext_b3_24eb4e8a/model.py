import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_encoder_modules_stages_modules_2_modules_layers_modules_0_parameters_layer_scale_parameter_: torch.nn.parameter.Parameter, L_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_bias_: torch.nn.parameter.Parameter, conv2d_4: torch.Tensor, linear_5: torch.Tensor):
        l_self_modules_encoder_modules_stages_modules_2_modules_layers_modules_0_parameters_layer_scale_parameter_ = L_self_modules_encoder_modules_stages_modules_2_modules_layers_modules_0_parameters_layer_scale_parameter_
        l_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_weight_ = L_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_weight_
        l_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_bias_ = L_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_bias_
        mul_2 = l_self_modules_encoder_modules_stages_modules_2_modules_layers_modules_0_parameters_layer_scale_parameter_ * linear_5;  l_self_modules_encoder_modules_stages_modules_2_modules_layers_modules_0_parameters_layer_scale_parameter_ = linear_5 = None
        permute_11 = mul_2.permute(0, 3, 1, 2);  mul_2 = None
        add_2 = conv2d_4 + permute_11;  conv2d_4 = permute_11 = None
        permute_12 = add_2.permute(0, 2, 3, 1);  add_2 = None
        layer_norm_6 = torch.nn.functional.layer_norm(permute_12, (64,), l_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_weight_, l_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_bias_, 1e-06);  permute_12 = l_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_weight_ = l_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_bias_ = None
        permute_13 = layer_norm_6.permute(0, 3, 1, 2);  layer_norm_6 = None
        return (permute_13,)
