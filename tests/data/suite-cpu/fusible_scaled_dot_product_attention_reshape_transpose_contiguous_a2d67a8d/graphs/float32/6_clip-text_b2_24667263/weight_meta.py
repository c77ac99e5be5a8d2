class Program_weight_tensor_meta_transpose:
    name = "transpose"
    shape = [1, 2, 16, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.004
    std = 0.092
    data = None
    min_val = -0.3215692937374115
    max_val = 0.2952430248260498


class Program_weight_tensor_meta_transpose_1:
    name = "transpose_1"
    shape = [1, 2, 16, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.004
    std = 0.088
    data = None
    min_val = -0.2987425923347473
    max_val = 0.28854212164878845


class Program_weight_tensor_meta_transpose_2:
    name = "transpose_2"
    shape = [1, 2, 16, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.004
    std = 0.089
    data = None
    min_val = -0.3247785270214081
    max_val = 0.3102780282497406
