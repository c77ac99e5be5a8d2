import torch


class GraphModule(torch.nn.Module):
    def forward(self, transpose_1: torch.Tensor, transpose_2: torch.Tensor, transpose_3: torch.Tensor):
        scaled_dot_product_attention = torch._C._nn.scaled_dot_product_attention(transpose_1, transpose_2, transpose_3, attn_mask = None, dropout_p = 0.0, scale = 0.125, is_causal = False);  transpose_1 = transpose_2 = transpose_3 = None
        reshape = scaled_dot_product_attention.reshape(2, -1, 257, 64);  scaled_dot_product_attention = None
        transpose_4 = reshape.transpose(1, 2);  reshape = None
        contiguous = transpose_4.contiguous();  transpose_4 = None
        reshape_1 = contiguous.reshape(2, 257, -1);  contiguous = None
        contiguous_1 = reshape_1.contiguous();  reshape_1 = None
        return (contiguous_1,)
