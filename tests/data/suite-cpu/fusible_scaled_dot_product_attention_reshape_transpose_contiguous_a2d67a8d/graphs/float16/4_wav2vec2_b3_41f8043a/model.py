import torch


class GraphModule(torch.nn.Module):
    def forward(self, transpose_3: torch.Tensor, transpose_4: torch.Tensor, transpose_5: torch.Tensor):
        scaled_dot_product_attention = torch._C._nn.scaled_dot_product_attention(transpose_3, transpose_4, transpose_5, attn_mask = None, dropout_p = 0.0, scale = 0.125, is_causal = False);  transpose_3 = transpose_4 = transpose_5 = None
        reshape = scaled_dot_product_attention.reshape(1, -1, 79, 64);  scaled_dot_product_attention = None
        transpose_6 = reshape.transpose(1, 2);  reshape = None
        contiguous = transpose_6.contiguous();  transpose_6 = None
        reshape_1 = contiguous.reshape(1, 79, -1);  contiguous = None
        contiguous_1 = reshape_1.contiguous();  reshape_1 = None
        return (contiguous_1,)
