import torch


class GraphModule(torch.nn.Module):
    def forward(self, getitem_9: torch.Tensor, unsqueeze_1: torch.Tensor):
        mul_3 = getitem_9 * unsqueeze_1;  unsqueeze_1 = None
        getitem_13 = getitem_9[(Ellipsis, slice(None, 16, None))]
        getitem_14 = getitem_9[(Ellipsis, slice(16, None, None))];  getitem_9 = None
        neg = -getitem_14;  getitem_14 = None
        return (mul_3, getitem_13, neg)
