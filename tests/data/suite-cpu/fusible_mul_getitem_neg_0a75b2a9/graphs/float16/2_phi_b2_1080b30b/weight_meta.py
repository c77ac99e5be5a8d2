class Program_weight_tensor_meta_getitem_9:
    name = "getitem_9"
    shape = [1, 2, 16, 32]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.041
    data = None
    min_val = -0.14250756800174713
    max_val = 0.1258321851491928


class Program_weight_tensor_meta_unsqueeze_1:
    name = "unsqueeze_1"
    shape = [1, 1, 16, 32]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.727
    std = 0.542
    data = None
    min_val = -0.9997860789299011
    max_val = 1.0
