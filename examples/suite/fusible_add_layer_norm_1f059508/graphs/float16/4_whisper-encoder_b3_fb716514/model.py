import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_layer_norm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_layer_norm_parameters_bias_: torch.nn.parameter.Parameter, add_3: torch.Tensor, dropout_6: torch.Tensor):
        l_self_modules_layer_norm_parameters_weight_ = L_self_modules_layer_norm_parameters_weight_
        l_self_modules_layer_norm_parameters_bias_ = L_self_modules_layer_norm_parameters_bias_
        add_4 = add_3 + dropout_6;  add_3 = dropout_6 = None
        layer_norm_4 = torch.nn.functional.layer_norm(add_4, (128,), l_self_modules_layer_norm_parameters_weight_, l_self_modules_layer_norm_parameters_bias_, 1e-05);  add_4 = l_self_modules_layer_norm_parameters_weight_ = l_self_modules_layer_norm_parameters_bias_ = None
        return (layer_norm_4,)
