import torch


class GraphModule(torch.nn.Module):
    def forward(self, transpose_5: torch.Tensor, unsqueeze_3: torch.Tensor, unsqueeze_4: torch.Tensor):
        mul_15 = transpose_5 * unsqueeze_3;  unsqueeze_3 = None
        getitem_15 = transpose_5[(Ellipsis, slice(None, 32, None))]
        getitem_16 = transpose_5[(Ellipsis, slice(32, None, None))];  transpose_5 = None
        neg_2 = -getitem_16;  getitem_16 = None
        cat_3 = torch.cat((neg_2, getitem_15), dim = -1);  neg_2 = getitem_15 = None
        mul_16 = cat_3 * unsqueeze_4;  cat_3 = unsqueeze_4 = None
        add_11 = mul_15 + mul_16;  mul_15 = mul_16 = None
        return (add_11,)
