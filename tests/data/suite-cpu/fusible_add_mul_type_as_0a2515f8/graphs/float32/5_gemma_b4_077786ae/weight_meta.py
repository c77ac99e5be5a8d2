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


class Program_weight_tensor_meta_mul_4:
    name = "mul_4"
    shape = [4, 128, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.006
    std = 1.000
    data = None
    min_val = -4.080934524536133
    max_val = 4.239261627197266


class Program_weight_tensor_meta_float_3:
    name = "float_3"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.001
    std = 0.020
    data = None
    min_val = -0.04825557768344879
    max_val = 0.05190996080636978
