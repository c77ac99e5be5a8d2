class Program_weight_tensor_meta_transpose_5:
    name = "transpose_5"
    shape = [1, 2, 16, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.002
    std = 0.043
    data = None
    stride = [2048, 64, 128, 1]
    min_val = -0.14824353158473969
    max_val = 0.122422955930233


class Program_weight_tensor_meta_unsqueeze_3:
    name = "unsqueeze_3"
    shape = [1, 1, 16, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.741
    std = 0.533
    data = None
    min_val = -0.9997860789299011
    max_val = 1.0


class Program_weight_tensor_meta_unsqueeze_4:
    name = "unsqueeze_4"
    shape = [1, 1, 16, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.160
    std = 0.377
    data = None
    min_val = -0.9999902248382568
    max_val = 0.9999465346336365
