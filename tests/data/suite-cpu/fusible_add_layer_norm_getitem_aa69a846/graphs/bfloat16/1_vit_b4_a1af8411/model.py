import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_layernorm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_layernorm_parameters_bias_: torch.nn.parameter.Parameter, add_3: torch.Tensor, dropout_4: torch.Tensor):
        l_self_modules_layernorm_parameters_weight_ = L_self_modules_layernorm_parameters_weight_
        l_self_modules_layernorm_parameters_bias_ = L_self_modules_layernorm_parameters_bias_
        add_4 = dropout_4 + add_3;  dropout_4 = add_3 = None
        layer_norm_4 = torch.nn.functional.layer_norm(add_4, (128,), l_self_modules_layernorm_parameters_weight_, l_self_modules_layernorm_parameters_bias_, 1e-12);  add_4 = l_self_modules_layernorm_parameters_weight_ = l_self_modules_layernorm_parameters_bias_ = None
        getitem = layer_norm_4[(slice(None, None, None), 0)]
        return (layer_norm_4, getitem)
