import torch


class GraphModule(torch.nn.Module):
    def forward(self, transpose: torch.Tensor, transpose_1: torch.Tensor, transpose_2: torch.Tensor):
        scaled_dot_product_attention = torch._C._nn.scaled_dot_product_attention(transpose, transpose_1, transpose_2, attn_mask = None, dropout_p = 0.0, scale = 0.125, is_causal = True);  transpose = transpose_1 = transpose_2 = None
        reshape = scaled_dot_product_attention.reshape(8, -1, 77, 64);  scaled_dot_product_attention = None
        transpose_3 = reshape.transpose(1, 2);  reshape = None
        contiguous = transpose_3.contiguous();  transpose_3 = None
        reshape_1 = contiguous.reshape(8, 77, -1);  contiguous = None
        contiguous_1 = reshape_1.contiguous();  reshape_1 = None
        return (contiguous_1,)
