class Program_weight_tensor_meta_transpose:
    name = "transpose"
    shape = [4, 2, 128, 32]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.001
    std = 0.017
    data = None
    min_val = -0.035281769931316376
    max_val = 0.03572826460003853


class Program_weight_tensor_meta_transpose_1:
    name = "transpose_1"
    shape = [4, 2, 128, 32]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.005
    std = 0.018
    data = None
    min_val = -0.039827946573495865
    max_val = 0.048978738486766815


class Program_weight_tensor_meta_transpose_2:
    name = "transpose_2"
    shape = [4, 2, 128, 32]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.000
    std = 0.020
    data = None
    min_val = -0.06081222742795944
    max_val = 0.039407599717378616
