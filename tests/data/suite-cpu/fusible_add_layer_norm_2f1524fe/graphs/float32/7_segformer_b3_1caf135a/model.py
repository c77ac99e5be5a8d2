import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_: torch.nn.parameter.Parameter, layer_norm: torch.Tensor, dropout: torch.Tensor):
        l_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_ = L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_
        l_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_ = L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_
        add = dropout + layer_norm;  dropout = layer_norm = None
        layer_norm_3 = torch.nn.functional.layer_norm(add, (16,), l_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_, l_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_, 1e-05);  l_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_ = l_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_ = None
        return (add, layer_norm_3)
