import torch


class GraphModule(torch.nn.Module):
    def forward(self, transpose_4: torch.Tensor):
        contiguous = transpose_4.contiguous();  transpose_4 = None
        reshape = contiguous.reshape(4, 128, -1);  contiguous = None
        contiguous_1 = reshape.contiguous();  reshape = None
        return (contiguous_1,)
