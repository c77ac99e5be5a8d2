import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_layers_modules_0_modules_layernorm_after_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_layers_modules_0_modules_layernorm_after_parameters_bias_: torch.nn.parameter.Parameter, dropout: torch.Tensor, dropout_1: torch.Tensor):
        l_self_modules_layers_modules_0_modules_layernorm_after_parameters_weight_ = L_self_modules_layers_modules_0_modules_layernorm_after_parameters_weight_
        l_self_modules_layers_modules_0_modules_layernorm_after_parameters_bias_ = L_self_modules_layers_modules_0_modules_layernorm_after_parameters_bias_
        add_1 = dropout_1 + dropout;  dropout_1 = dropout = None
        layer_norm_1 = torch.nn.functional.layer_norm(add_1, (128,), l_self_modules_layers_modules_0_modules_layernorm_after_parameters_weight_, l_self_modules_layers_modules_0_modules_layernorm_after_parameters_bias_, 1e-12);  l_self_modules_layers_modules_0_modules_layernorm_after_parameters_weight_ = l_self_modules_layers_modules_0_modules_layernorm_after_parameters_bias_ = None
        return (add_1, layer_norm_1)
