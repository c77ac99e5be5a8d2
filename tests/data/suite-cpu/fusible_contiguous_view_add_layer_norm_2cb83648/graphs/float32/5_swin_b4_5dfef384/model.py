import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_: torch.nn.parameter.Parameter, dropout: torch.Tensor, transpose_6: torch.Tensor):
        l_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_ = L_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_
        l_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_ = L_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_
        contiguous_4 = transpose_6.contiguous();  transpose_6 = None
        view_10 = contiguous_4.view(-1, 32, 32, 32);  contiguous_4 = None
        view_11 = view_10.view(2, 1024, 32);  view_10 = None
        add = dropout + view_11;  dropout = view_11 = None
        layer_norm_2 = torch.nn.functional.layer_norm(add, (32,), l_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_, l_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_, 1e-05);  l_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_ = l_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_ = None
        return (add, layer_norm_2)
