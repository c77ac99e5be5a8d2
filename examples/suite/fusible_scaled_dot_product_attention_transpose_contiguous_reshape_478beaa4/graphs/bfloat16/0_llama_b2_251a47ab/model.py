import torch


class GraphModule(torch.nn.Module):
    def forward(self, expand: torch.Tensor, add_4: torch.Tensor, reshape: torch.Tensor, reshape_1: torch.Tensor):
        scaled_dot_product_attention = torch._C._nn.scaled_dot_product_attention(add_4, reshape, reshape_1, attn_mask = expand, dropout_p = 0.0, scale = 0.125, is_causal = False);  add_4 = reshape = reshape_1 = expand = None
        transpose_4 = scaled_dot_product_attention.transpose(1, 2);  scaled_dot_product_attention = None
        contiguous = transpose_4.contiguous();  transpose_4 = None
        reshape_2 = contiguous.reshape(1, 16, -1);  contiguous = None
        contiguous_1 = reshape_2.contiguous();  reshape_2 = None
        return (contiguous_1,)
