import torch


class GraphModule(torch.nn.Module):
    def forward(self, transpose_2: torch.Tensor, transpose_3: torch.Tensor, transpose_4: torch.Tensor, unsqueeze: torch.Tensor):
        scaled_dot_product_attention = torch._C._nn.scaled_dot_product_attention(transpose_2, transpose_3, transpose_4, attn_mask = unsqueeze, dropout_p = 0.0, scale = 0.25, is_causal = False);  transpose_2 = transpose_3 = transpose_4 = unsqueeze = None
        reshape = scaled_dot_product_attention.reshape(4, -1, 16, 16);  scaled_dot_product_attention = None
        transpose_5 = reshape.transpose(1, 2);  reshape = None
        contiguous_2 = transpose_5.contiguous();  transpose_5 = None
        reshape_1 = contiguous_2.reshape(4, 16, -1);  contiguous_2 = None
        contiguous_3 = reshape_1.contiguous();  reshape_1 = None
        return (contiguous_3,)
