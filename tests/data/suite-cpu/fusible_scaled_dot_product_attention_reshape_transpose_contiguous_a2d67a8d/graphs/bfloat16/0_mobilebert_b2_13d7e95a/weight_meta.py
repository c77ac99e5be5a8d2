class Program_weight_tensor_meta_transpose:
    name = "transpose"
    shape = [1, 2, 16, 32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.001
    std = 0.017
    data = None
    min_val = -0.035280417650938034
    max_val = 0.03572721779346466


class Program_weight_tensor_meta_transpose_1:
    name = "transpose_1"
    shape = [1, 2, 16, 32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.005
    std = 0.018
    data = None
    min_val = -0.039816964417696
    max_val = 0.04897802323102951


class Program_weight_tensor_meta_transpose_2:
    name = "transpose_2"
    shape = [1, 2, 16, 32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.020
    data = None
    min_val = -0.060684897005558014
    max_val = 0.039113596081733704
