import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_encoder_modules_layers_modules_1_modules_blocks_modules_0_dict_modules_layernorm_before_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_encoder_modules_layers_modules_1_modules_blocks_modules_0_dict_modules_layernorm_before_parameters_bias_: torch.nn.parameter.Parameter, linear_6: torch.Tensor):
        l_self_modules_encoder_modules_layers_modules_1_modules_blocks_modules_0_dict_modules_layernorm_before_parameters_weight_ = L_self_modules_encoder_modules_layers_modules_1_modules_blocks_modules_0_dict_modules_layernorm_before_parameters_weight_
        l_self_modules_encoder_modules_layers_modules_1_modules_blocks_modules_0_dict_modules_layernorm_before_parameters_bias_ = L_self_modules_encoder_modules_layers_modules_1_modules_blocks_modules_0_dict_modules_layernorm_before_parameters_bias_
        layer_norm_4 = torch.nn.functional.layer_norm(linear_6, (64,), l_self_modules_encoder_modules_layers_modules_1_modules_blocks_modules_0_dict_modules_layernorm_before_parameters_weight_, l_self_modules_encoder_modules_layers_modules_1_modules_blocks_modules_0_dict_modules_layernorm_before_parameters_bias_, 1e-05);  linear_6 = l_self_modules_encoder_modules_layers_modules_1_modules_blocks_modules_0_dict_modules_layernorm_before_parameters_weight_ = l_self_modules_encoder_modules_layers_modules_1_modules_blocks_modules_0_dict_modules_layernorm_before_parameters_bias_ = None
        view_15 = layer_norm_4.view(1, 4, 4, 64);  layer_norm_4 = None
        pad_1 = torch._C._nn.pad(view_15, (0, 0, 0, 0, 0, 0), 'constant', None);  view_15 = None
        view_16 = pad_1.view(1, 1, 4, 1, 4, 64);  pad_1 = None
        transpose_7 = view_16.transpose(2, 3);  view_16 = None
        contiguous_6 = transpose_7.contiguous();  transpose_7 = None
        view_17 = contiguous_6.view(-1, 4, 4, 64);  contiguous_6 = None
        view_18 = view_17.view(-1, 16, 64);  view_17 = None
        return (view_18,)
