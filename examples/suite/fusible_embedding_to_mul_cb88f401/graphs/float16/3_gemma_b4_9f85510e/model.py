import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_args_0_: torch.Tensor, L_self_modules_embed_tokens_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_embed_tokens_buffers_embed_scale_: torch.Tensor):
        l_args_0_ = L_args_0_
        l_self_modules_embed_tokens_parameters_weight_ = L_self_modules_embed_tokens_parameters_weight_
        l_self_modules_embed_tokens_buffers_embed_scale_ = L_self_modules_embed_tokens_buffers_embed_scale_
        embedding = torch.nn.functional.embedding(l_args_0_, l_self_modules_embed_tokens_parameters_weight_, 0, None, 2.0, False, False);  l_args_0_ = l_self_modules_embed_tokens_parameters_weight_ = None
        to = l_self_modules_embed_tokens_buffers_embed_scale_.to(torch.float16);  l_self_modules_embed_tokens_buffers_embed_scale_ = None
        mul = embedding * to;  embedding = to = None
        return (mul,)
