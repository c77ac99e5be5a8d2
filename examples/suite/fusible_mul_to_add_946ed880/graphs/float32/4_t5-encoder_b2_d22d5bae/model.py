import torch


class GraphModule(torch.nn.Module):
    def forward(self, truediv_1: torch.Tensor):
        mul_3 = truediv_1 * 8;  truediv_1 = None
        to_2 = mul_3.to(torch.int64);  mul_3 = None
        add_5 = 8 + to_2;  to_2 = None
        return (add_5,)
