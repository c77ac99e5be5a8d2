import torch


class GraphModule(torch.nn.Module):
    def forward(self, transpose_3: torch.Tensor):
        contiguous_3 = transpose_3.contiguous();  transpose_3 = None
        reshape_1 = contiguous_3.reshape(1, 32, -1);  contiguous_3 = None
        contiguous_4 = reshape_1.contiguous();  reshape_1 = None
        return (contiguous_4,)
