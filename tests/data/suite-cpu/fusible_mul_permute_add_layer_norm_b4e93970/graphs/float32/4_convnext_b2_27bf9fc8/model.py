import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_encoder_modules_stages_modules_1_modules_layers_modules_0_parameters_layer_scale_parameter_: torch.nn.parameter.Parameter, L_self_modules_encoder_modules_stages_modules_2_modules_downsampling_layer_modules_0_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_encoder_modules_stages_modules_2_modules_downsampling_layer_modules_0_parameters_bias_: torch.nn.parameter.Parameter, conv2d_2: torch.Tensor, linear_3: torch.Tensor):
        l_self_modules_encoder_modules_stages_modules_1_modules_layers_modules_0_parameters_layer_scale_parameter_ = L_self_modules_encoder_modules_stages_modules_1_modules_layers_modules_0_parameters_layer_scale_parameter_
        l_self_modules_encoder_modules_stages_modules_2_modules_downsampling_layer_modules_0_parameters_weight_ = L_self_modules_encoder_modules_stages_modules_2_modules_downsampling_layer_modules_0_parameters_weight_
        l_self_modules_encoder_modules_stages_modules_2_modules_downsampling_layer_modules_0_parameters_bias_ = L_self_modules_encoder_modules_stages_modules_2_modules_downsampling_layer_modules_0_parameters_bias_
        mul_1 = l_self_modules_encoder_modules_stages_modules_1_modules_layers_modules_0_parameters_layer_scale_parameter_ * linear_3;  l_self_modules_encoder_modules_stages_modules_1_modules_layers_modules_0_parameters_layer_scale_parameter_ = linear_3 = None
        permute_7 = mul_1.permute(0, 3, 1, 2);  mul_1 = None
        add_1 = conv2d_2 + permute_7;  conv2d_2 = permute_7 = None
        permute_8 = add_1.permute(0, 2, 3, 1);  add_1 = None
        layer_norm_4 = torch.nn.functional.layer_norm(permute_8, (32,), l_self_modules_encoder_modules_stages_modules_2_modules_downsampling_layer_modules_0_parameters_weight_, l_self_modules_encoder_modules_stages_modules_2_modules_downsampling_layer_modules_0_parameters_bias_, 1e-06);  permute_8 = l_self_modules_encoder_modules_stages_modules_2_modules_downsampling_layer_modules_0_parameters_weight_ = l_self_modules_encoder_modules_stages_modules_2_modules_downsampling_layer_modules_0_parameters_bias_ = None
        permute_9 = layer_norm_4.permute(0, 3, 1, 2);  layer_norm_4 = None
        return (permute_9,)
