import torch
from torch import device


class GraphModule(torch.nn.Module):
    def forward(self, L_args_1_: torch.Tensor, L_args_0_modules_embed_tokens_parameters_weight_: torch.nn.parameter.Parameter):
        l_args_1_ = L_args_1_
        l_args_0_modules_embed_tokens_parameters_weight_ = L_args_0_modules_embed_tokens_parameters_weight_
        embedding = torch.nn.functional.embedding(l_args_1_, l_args_0_modules_embed_tokens_parameters_weight_, None, None, 2.0, False, False);  l_args_1_ = l_args_0_modules_embed_tokens_parameters_weight_ = None
        arange = torch.arange(16, device = device(type='cpu'))
        add = arange + 0;  arange = None
        unsqueeze = add.unsqueeze(0);  add = None
        getitem = unsqueeze[(slice(None, None, None), slice(None, 1, None))]
        sub = getitem - 1;  getitem = None
        diff = torch.diff(unsqueeze, prepend = sub, dim = -1);  sub = None
        ne = diff != 1;  diff = None
        return (embedding, unsqueeze, ne)
