class Program_weight_tensor_meta_transpose_5:
    name = "transpose_5"
    shape = [2, 2, 64, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.002
    std = 0.044
    data = None
    stride = [8192, 64, 128, 1]
    min_val = -0.17215551435947418
    max_val = 0.1679133027791977


class Program_weight_tensor_meta_unsqueeze_3:
    name = "unsqueeze_3"
    shape = [1, 1, 64, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.585
    std = 0.641
    data = None
    min_val = -1.0
    max_val = 1.0


class Program_weight_tensor_meta_unsqueeze_4:
    name = "unsqueeze_4"
    shape = [1, 1, 64, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.169
    std = 0.467
    data = None
    min_val = -0.9999902248382568
    max_val = 0.9999929666519165
