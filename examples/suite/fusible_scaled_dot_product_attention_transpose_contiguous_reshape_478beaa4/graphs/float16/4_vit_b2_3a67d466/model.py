import torch


class GraphModule(torch.nn.Module):
    def forward(self, expand_1: torch.Tensor, transpose_1: torch.Tensor, transpose_2: torch.Tensor, transpose_3: torch.Tensor):
        scaled_dot_product_attention = torch._C._nn.scaled_dot_product_attention(transpose_1, transpose_2, transpose_3, attn_mask = expand_1, dropout_p = 0.0, scale = 0.125, is_causal = False);  transpose_1 = transpose_2 = transpose_3 = expand_1 = None
        transpose_4 = scaled_dot_product_attention.transpose(1, 2);  scaled_dot_product_attention = None
        contiguous = transpose_4.contiguous();  transpose_4 = None
        reshape = contiguous.reshape(1, 17, -1);  contiguous = None
        contiguous_1 = reshape.contiguous();  reshape = None
        return (contiguous_1,)
