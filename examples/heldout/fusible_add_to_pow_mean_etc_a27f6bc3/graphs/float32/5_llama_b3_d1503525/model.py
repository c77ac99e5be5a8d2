import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_args_0_modules_norm_parameters_weight_: torch.nn.parameter.Parameter, add_12: torch.Tensor, linear_13: torch.Tensor):
        l_args_0_modules_norm_parameters_weight_ = L_args_0_modules_norm_parameters_weight_
        add_14 = add_12 + linear_13;  add_12 = linear_13 = None
        to_13 = add_14.to(torch.float32);  add_14 = None
        pow_5 = to_13.pow(2)
        mean_4 = pow_5.mean(-1, keepdim = True);  pow_5 = None
        add_15 = mean_4 + 1e-06;  mean_4 = None
        rsqrt_4 = torch.rsqrt(add_15);  add_15 = None
        mul_21 = to_13 * rsqrt_4;  to_13 = rsqrt_4 = None
        to_14 = mul_21.to(torch.float32);  mul_21 = None
        mul_22 = l_args_0_modules_norm_parameters_weight_ * to_14;  l_args_0_modules_norm_parameters_weight_ = to_14 = None
        return (mul_22,)
