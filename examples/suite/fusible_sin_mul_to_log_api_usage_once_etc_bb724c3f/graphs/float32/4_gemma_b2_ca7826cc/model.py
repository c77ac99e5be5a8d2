import torch


class GraphModule(torch.nn.Module):
    def forward(self, mul: torch.Tensor, cat: torch.Tensor, mul_1: torch.Tensor):
        sin = cat.sin();  cat = None
        mul_2 = sin * 1.0;  sin = None
        to_4 = mul_1.to(dtype = torch.float32);  mul_1 = None
        to_5 = mul_2.to(dtype = torch.float32);  mul_2 = None
        _log_api_usage_once = torch._C._log_api_usage_once('python.nn_module');  _log_api_usage_once = None
        float_2 = mul.float();  mul = None
        return (to_4, to_5, float_2)
