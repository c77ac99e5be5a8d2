import torch


class GraphModule(torch.nn.Module):
    def forward(self, transpose_1: torch.Tensor, transpose_4: torch.Tensor, transpose_5: torch.Tensor):
        scaled_dot_product_attention = torch._C._nn.scaled_dot_product_attention(transpose_1, transpose_4, transpose_5, attn_mask = None, dropout_p = 0.0, scale = 0.25, is_causal = False);  transpose_1 = transpose_4 = transpose_5 = None
        reshape_2 = scaled_dot_product_attention.reshape(2, -1, 1024, 16);  scaled_dot_product_attention = None
        transpose_6 = reshape_2.transpose(1, 2);  reshape_2 = None
        contiguous = transpose_6.contiguous();  transpose_6 = None
        reshape_3 = contiguous.reshape(2, 1024, -1);  contiguous = None
        contiguous_1 = reshape_3.contiguous();  reshape_3 = None
        return (contiguous_1,)
