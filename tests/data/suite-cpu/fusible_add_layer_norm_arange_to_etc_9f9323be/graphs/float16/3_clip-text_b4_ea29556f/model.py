import torch
from torch import device


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_final_layer_norm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_final_layer_norm_parameters_bias_: torch.nn.parameter.Parameter, view: torch.Tensor, add_3: torch.Tensor, linear_11: torch.Tensor):
        l_self_modules_final_layer_norm_parameters_weight_ = L_self_modules_final_layer_norm_parameters_weight_
        l_self_modules_final_layer_norm_parameters_bias_ = L_self_modules_final_layer_norm_parameters_bias_
        add_4 = add_3 + linear_11;  add_3 = linear_11 = None
        layer_norm_4 = torch.nn.functional.layer_norm(add_4, (128,), l_self_modules_final_layer_norm_parameters_weight_, l_self_modules_final_layer_norm_parameters_bias_, 1e-05);  add_4 = l_self_modules_final_layer_norm_parameters_weight_ = l_self_modules_final_layer_norm_parameters_bias_ = None
        arange = torch.arange(8, device = device(type='cpu'))
        to = view.to(dtype = torch.int32, device = device(type='cpu'));  view = None
        eq = to == 0;  to = None
        int_1 = eq.int();  eq = None
        argmax = int_1.argmax(dim = -1);  int_1 = None
        getitem_1 = layer_norm_4[(arange, argmax)];  arange = argmax = None
        return (layer_norm_4, getitem_1)
