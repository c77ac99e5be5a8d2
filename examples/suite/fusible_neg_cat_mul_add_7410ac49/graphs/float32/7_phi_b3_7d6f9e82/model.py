import torch


class GraphModule(torch.nn.Module):
    def forward(self, unsqueeze_2: torch.Tensor, mul_2: torch.Tensor, getitem_12: torch.Tensor, getitem_13: torch.Tensor):
        neg = -getitem_13;  getitem_13 = None
        cat_1 = torch.cat((neg, getitem_12), dim = -1);  neg = getitem_12 = None
        mul_3 = cat_1 * unsqueeze_2;  cat_1 = unsqueeze_2 = None
        add_3 = mul_2 + mul_3;  mul_2 = mul_3 = None
        return (add_3,)
