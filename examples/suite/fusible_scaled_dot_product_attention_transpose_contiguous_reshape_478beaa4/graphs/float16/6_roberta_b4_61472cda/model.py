import torch


class GraphModule(torch.nn.Module):
    def forward(self, expand_2: torch.Tensor, transpose: torch.Tensor, transpose_1: torch.Tensor, transpose_2: torch.Tensor):
        scaled_dot_product_attention = torch._C._nn.scaled_dot_product_attention(transpose, transpose_1, transpose_2, attn_mask = expand_2, dropout_p = 0.0, scale = 0.125, is_causal = False);  transpose = transpose_1 = transpose_2 = expand_2 = None
        transpose_3 = scaled_dot_product_attention.transpose(1, 2);  scaled_dot_product_attention = None
        contiguous = transpose_3.contiguous();  transpose_3 = None
        reshape = contiguous.reshape(4, 128, -1);  contiguous = None
        contiguous_1 = reshape.contiguous();  reshape = None
        return (contiguous_1,)
