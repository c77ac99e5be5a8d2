import torch


class GraphModule(torch.nn.Module):
    def forward(self, cat: torch.Tensor):
        cos = cat.cos()
        mul = cos * 1.0;  cos = None
        sin = cat.sin();  cat = None
        mul_1 = sin * 1.0;  sin = None
        to_3 = mul.to(dtype = torch.float32);  mul = None
        to_4 = mul_1.to(dtype = torch.float32);  mul_1 = None
        _log_api_usage_once = torch._C._log_api_usage_once('python.nn_module');  _log_api_usage_once = None
        return (to_3, to_4)
