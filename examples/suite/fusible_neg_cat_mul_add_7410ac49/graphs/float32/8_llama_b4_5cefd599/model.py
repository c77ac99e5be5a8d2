import torch


class GraphModule(torch.nn.Module):
    def forward(self, unsqueeze_2: torch.Tensor, mul_4: torch.Tensor, getitem_8: torch.Tensor, getitem_9: torch.Tensor):
        neg = -getitem_9;  getitem_9 = None
        cat_1 = torch.cat((neg, getitem_8), dim = -1);  neg = getitem_8 = None
        mul_5 = cat_1 * unsqueeze_2;  cat_1 = unsqueeze_2 = None
        add_4 = mul_4 + mul_5;  mul_4 = mul_5 = None
        return (add_4,)
