import torch


class GraphModule(torch.nn.Module):
    def forward(self, transpose_6: torch.Tensor, transpose_7: torch.Tensor, unsqueeze_3: torch.Tensor, unsqueeze_4: torch.Tensor):
        mul_17 = transpose_6 * unsqueeze_3;  unsqueeze_3 = None
        getitem_17 = transpose_6[(Ellipsis, slice(None, 32, None))]
        getitem_18 = transpose_6[(Ellipsis, slice(32, None, None))];  transpose_6 = None
        neg_3 = -getitem_18;  getitem_18 = None
        cat_4 = torch.cat((neg_3, getitem_17), dim = -1);  neg_3 = getitem_17 = None
        mul_18 = cat_4 * unsqueeze_4;  cat_4 = unsqueeze_4 = None
        add_12 = mul_17 + mul_18;  mul_17 = mul_18 = None
        getitem_19 = add_12[(slice(None, None, None), slice(None, None, None), None, slice(None, None, None), slice(None, None, None))];  add_12 = None
        expand_4 = getitem_19.expand(1, 1, 2, 16, 64);  getitem_19 = None
        reshape_3 = expand_4.reshape(1, 2, 16, 64);  expand_4 = None
        getitem_20 = transpose_7[(slice(None, None, None), slice(None, None, None), None, slice(None, None, None), slice(None, None, None))];  transpose_7 = None
        expand_5 = getitem_20.expand(1, 1, 2, 16, 64);  getitem_20 = None
        reshape_4 = expand_5.reshape(1, 2, 16, 64);  expand_5 = None
        transpose_8 = reshape_3.transpose(2, 3);  reshape_3 = None
        return (reshape_4, transpose_8)
