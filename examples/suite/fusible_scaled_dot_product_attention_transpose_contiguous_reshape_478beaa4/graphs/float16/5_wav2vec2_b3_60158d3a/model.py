import torch


class GraphModule(torch.nn.Module):
    def forward(self, expand: torch.Tensor, transpose_3: torch.Tensor, transpose_4: torch.Tensor, transpose_5: torch.Tensor):
        scaled_dot_product_attention = torch._C._nn.scaled_dot_product_attention(transpose_3, transpose_4, transpose_5, attn_mask = expand, dropout_p = 0.0, scale = 0.125, is_causal = False);  transpose_3 = transpose_4 = transpose_5 = expand = None
        transpose_6 = scaled_dot_product_attention.transpose(1, 2);  scaled_dot_product_attention = None
        contiguous = transpose_6.contiguous();  transpose_6 = None
        reshape = contiguous.reshape(1, 79, -1);  contiguous = None
        contiguous_1 = reshape.contiguous();  reshape = None
        return (contiguous_1,)
