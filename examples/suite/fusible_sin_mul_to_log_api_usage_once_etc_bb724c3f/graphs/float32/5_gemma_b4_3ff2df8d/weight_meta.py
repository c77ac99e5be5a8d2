class Program_weight_tensor_meta_mul:
    name = "mul"
    shape = [4, 128, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.000
    std = 0.045
    data = None
    min_val = -0.18672244250774384
    max_val = 0.20648401975631714


class Program_weight_tensor_meta_cat:
    name = "cat"
    shape = [1, 128, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 7.933
    std = 17.958
    data = None
    min_val = 0.0
    max_val = 127.0


class Program_weight_tensor_meta_mul_1:
    name = "mul_1"
    shape = [1, 128, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.504
    std = 0.680
    data = None
    min_val = -1.0
    max_val = 1.0
