import torch


class GraphModule(torch.nn.Module):
    def forward(self, contiguous: torch.Tensor, contiguous_1: torch.Tensor, contiguous_2: torch.Tensor):
        scaled_dot_product_attention = torch._C._nn.scaled_dot_product_attention(contiguous, contiguous_1, contiguous_2, attn_mask = None, dropout_p = 0.0, scale = 1.0, is_causal = False);  contiguous = contiguous_1 = contiguous_2 = None
        transpose_3 = scaled_dot_product_attention.transpose(1, 2);  scaled_dot_product_attention = None
        contiguous_3 = transpose_3.contiguous();  transpose_3 = None
        reshape = contiguous_3.reshape(1, 32, -1);  contiguous_3 = None
        contiguous_4 = reshape.contiguous();  reshape = None
        return (contiguous_4,)
