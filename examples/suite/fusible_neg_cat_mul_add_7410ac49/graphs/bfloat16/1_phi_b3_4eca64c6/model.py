import torch


class GraphModule(torch.nn.Module):
    def forward(self, unsqueeze_2: torch.Tensor, mul_4: torch.Tensor, getitem_14: torch.Tensor, getitem_15: torch.Tensor):
        neg_1 = -getitem_15;  getitem_15 = None
        cat_2 = torch.cat((neg_1, getitem_14), dim = -1);  neg_1 = getitem_14 = None
        mul_5 = cat_2 * unsqueeze_2;  cat_2 = unsqueeze_2 = None
        add_4 = mul_4 + mul_5;  mul_4 = mul_5 = None
        return (add_4,)
