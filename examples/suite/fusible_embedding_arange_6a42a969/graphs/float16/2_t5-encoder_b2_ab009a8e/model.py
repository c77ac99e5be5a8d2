import torch
from torch import device


class GraphModule(torch.nn.Module):
    def forward(self, L_args_0_: torch.Tensor, L_self_modules_encoder_modules_embed_tokens_parameters_weight_: torch.nn.parameter.Parameter):
        l_args_0_ = L_args_0_
        l_self_modules_encoder_modules_embed_tokens_parameters_weight_ = L_self_modules_encoder_modules_embed_tokens_parameters_weight_
        embedding = torch.nn.functional.embedding(l_args_0_, l_self_modules_encoder_modules_embed_tokens_parameters_weight_, None, None, 2.0, False, False);  l_args_0_ = l_self_modules_encoder_modules_embed_tokens_parameters_weight_ = None
        arange = torch.arange(1, device = device(type='cpu'));  arange = None
        arange_1 = torch.arange(1, device = device(type='cpu'));  arange_1 = None
        return (embedding,)
