import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_stages_modules_1_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_stages_modules_1_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_: torch.nn.parameter.Parameter, layer_norm_5: torch.Tensor, dropout_3: torch.Tensor):
        l_self_modules_stages_modules_1_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_ = L_self_modules_stages_modules_1_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_
        l_self_modules_stages_modules_1_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_ = L_self_modules_stages_modules_1_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_
        add_2 = dropout_3 + layer_norm_5;  dropout_3 = layer_norm_5 = None
        layer_norm_8 = torch.nn.functional.layer_norm(add_2, (32,), l_self_modules_stages_modules_1_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_, l_self_modules_stages_modules_1_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_, 1e-05);  l_self_modules_stages_modules_1_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_ = l_self_modules_stages_modules_1_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_ = None
        return (add_2, layer_norm_8)
