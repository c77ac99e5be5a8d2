import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_post_layernorm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_post_layernorm_parameters_bias_: torch.nn.parameter.Parameter, add_3: torch.Tensor, linear_11: torch.Tensor):
        l_self_modules_post_layernorm_parameters_weight_ = L_self_modules_post_layernorm_parameters_weight_
        l_self_modules_post_layernorm_parameters_bias_ = L_self_modules_post_layernorm_parameters_bias_
        add_4 = add_3 + linear_11;  add_3 = linear_11 = None
        getitem = add_4[(slice(None, None, None), 0, slice(None, None, None))]
        layer_norm_5 = torch.nn.functional.layer_norm(getitem, (128,), l_self_modules_post_layernorm_parameters_weight_, l_self_modules_post_layernorm_parameters_bias_, 1e-05);  getitem = l_self_modules_post_layernorm_parameters_weight_ = l_self_modules_post_layernorm_parameters_bias_ = None
        return (add_4, layer_norm_5)
