import torch


class GraphModule(torch.nn.Module):
    def forward(self, transpose_3: torch.Tensor, unsqueeze_2: torch.Tensor, mul_6: torch.Tensor, getitem_10: torch.Tensor, getitem_11: torch.Tensor):
        neg_1 = -getitem_11;  getitem_11 = None
        cat_2 = torch.cat((neg_1, getitem_10), dim = -1);  neg_1 = getitem_10 = None
        mul_7 = cat_2 * unsqueeze_2;  cat_2 = unsqueeze_2 = None
        add_5 = mul_6 + mul_7;  mul_6 = mul_7 = None
        getitem_12 = add_5[(slice(None, None, None), slice(None, None, None), None, slice(None, None, None), slice(None, None, None))];  add_5 = None
        expand_3 = getitem_12.expand(4, 1, 2, 128, 64);  getitem_12 = None
        reshape = expand_3.reshape(4, 2, 128, 64);  expand_3 = None
        getitem_13 = transpose_3[(slice(None, None, None), slice(None, None, None), None, slice(None, None, None), slice(None, None, None))];  transpose_3 = None
        expand_4 = getitem_13.expand(4, 1, 2, 128, 64);  getitem_13 = None
        reshape_1 = expand_4.reshape(4, 2, 128, 64);  expand_4 = None
        return (reshape, reshape_1)
