import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_encoder_modules_stages_modules_0_modules_layers_modules_0_parameters_layer_scale_parameter_: torch.nn.parameter.Parameter, L_self_modules_encoder_modules_stages_modules_1_modules_downsampling_layer_modules_0_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_encoder_modules_stages_modules_1_modules_downsampling_layer_modules_0_parameters_bias_: torch.nn.parameter.Parameter, permute_1: torch.Tensor, linear_1: torch.Tensor):
        l_self_modules_encoder_modules_stages_modules_0_modules_layers_modules_0_parameters_layer_scale_parameter_ = L_self_modules_encoder_modules_stages_modules_0_modules_layers_modules_0_parameters_layer_scale_parameter_
        l_self_modules_encoder_modules_stages_modules_1_modules_downsampling_layer_modules_0_parameters_weight_ = L_self_modules_encoder_modules_stages_modules_1_modules_downsampling_layer_modules_0_parameters_weight_
        l_self_modules_encoder_modules_stages_modules_1_modules_downsampling_layer_modules_0_parameters_bias_ = L_self_modules_encoder_modules_stages_modules_1_modules_downsampling_layer_modules_0_parameters_bias_
        mul = l_self_modules_encoder_modules_stages_modules_0_modules_layers_modules_0_parameters_layer_scale_parameter_ * linear_1;  l_self_modules_encoder_modules_stages_modules_0_modules_layers_modules_0_parameters_layer_scale_parameter_ = linear_1 = None
        permute_3 = mul.permute(0, 3, 1, 2);  mul = None
        add = permute_1 + permute_3;  permute_1 = permute_3 = None
        permute_4 = add.permute(0, 2, 3, 1);  add = None
        layer_norm_2 = torch.nn.functional.layer_norm(permute_4, (16,), l_self_modules_encoder_modules_stages_modules_1_modules_downsampling_layer_modules_0_parameters_weight_, l_self_modules_encoder_modules_stages_modules_1_modules_downsampling_layer_modules_0_parameters_bias_, 1e-06);  permute_4 = l_self_modules_encoder_modules_stages_modules_1_modules_downsampling_layer_modules_0_parameters_weight_ = l_self_modules_encoder_modules_stages_modules_1_modules_downsampling_layer_modules_0_parameters_bias_ = None
        permute_5 = layer_norm_2.permute(0, 3, 1, 2);  layer_norm_2 = None
        return (permute_5,)
