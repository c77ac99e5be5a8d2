import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_args_0_modules_layers_modules_0_modules_post_attention_layernorm_parameters_weight_: torch.nn.parameter.Parameter, embedding: torch.Tensor, linear_3: torch.Tensor):
        l_args_0_modules_layers_modules_0_modules_post_attention_layernorm_parameters_weight_ = L_args_0_modules_layers_modules_0_modules_post_attention_layernorm_parameters_weight_
        add_6 = embedding + linear_3;  embedding = linear_3 = None
        to_7 = add_6.to(torch.float16)
        pow_2 = to_7.pow(2)
        mean_1 = pow_2.mean(-1, keepdim = True);  pow_2 = None
        add_7 = mean_1 + 1e-06;  mean_1 = None
        rsqrt_1 = torch.rsqrt(add_7);  add_7 = None
        mul_9 = to_7 * rsqrt_1;  to_7 = rsqrt_1 = None
        to_8 = mul_9.to(torch.float16);  mul_9 = None
        mul_10 = l_args_0_modules_layers_modules_0_modules_post_attention_layernorm_parameters_weight_ * to_8;  l_args_0_modules_layers_modules_0_modules_post_attention_layernorm_parameters_weight_ = to_8 = None
        return (add_6, mul_10)
