import torch


class GraphModule(torch.nn.Module):
    def forward(self, embedding: torch.Tensor, cat: torch.Tensor, mul: torch.Tensor):
        sin = cat.sin();  cat = None
        mul_1 = sin * 1.0;  sin = None
        to_3 = mul.to(dtype = torch.bfloat16);  mul = None
        to_4 = mul_1.to(dtype = torch.bfloat16);  mul_1 = None
        _log_api_usage_once = torch._C._log_api_usage_once('python.nn_module');  _log_api_usage_once = None
        to_5 = embedding.to(torch.bfloat16);  embedding = None
        return (to_3, to_4, to_5)
