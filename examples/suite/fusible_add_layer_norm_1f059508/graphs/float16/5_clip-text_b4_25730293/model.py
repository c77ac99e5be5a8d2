import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_final_layer_norm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_final_layer_norm_parameters_bias_: torch.nn.parameter.Parameter, add_5: torch.Tensor, linear_11: torch.Tensor):
        l_self_modules_final_layer_norm_parameters_weight_ = L_self_modules_final_layer_norm_parameters_weight_
        l_self_modules_final_layer_norm_parameters_bias_ = L_self_modules_final_layer_norm_parameters_bias_
        add_6 = add_5 + linear_11;  add_5 = linear_11 = None
        layer_norm_4 = torch.nn.functional.layer_norm(add_6, (128,), l_self_modules_final_layer_norm_parameters_weight_, l_self_modules_final_layer_norm_parameters_bias_, 1e-05);  add_6 = l_self_modules_final_layer_norm_parameters_weight_ = l_self_modules_final_layer_norm_parameters_bias_ = None
        return (layer_norm_4,)
