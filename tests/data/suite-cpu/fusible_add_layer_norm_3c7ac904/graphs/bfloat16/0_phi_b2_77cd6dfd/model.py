import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_layers_modules_1_modules_input_layernorm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_layers_modules_1_modules_input_layernorm_parameters_bias_: torch.nn.parameter.Parameter, dropout: torch.Tensor, dropout_1: torch.Tensor, dropout_2: torch.Tensor):
        l_self_modules_layers_modules_1_modules_input_layernorm_parameters_weight_ = L_self_modules_layers_modules_1_modules_input_layernorm_parameters_weight_
        l_self_modules_layers_modules_1_modules_input_layernorm_parameters_bias_ = L_self_modules_layers_modules_1_modules_input_layernorm_parameters_bias_
        add_7 = dropout_1 + dropout_2;  dropout_1 = dropout_2 = None
        add_8 = add_7 + dropout;  add_7 = dropout = None
        layer_norm_1 = torch.nn.functional.layer_norm(add_8, (128,), l_self_modules_layers_modules_1_modules_input_layernorm_parameters_weight_, l_self_modules_layers_modules_1_modules_input_layernorm_parameters_bias_, 1e-05);  l_self_modules_layers_modules_1_modules_input_layernorm_parameters_weight_ = l_self_modules_layers_modules_1_modules_input_layernorm_parameters_bias_ = None
        return (add_8, layer_norm_1)
