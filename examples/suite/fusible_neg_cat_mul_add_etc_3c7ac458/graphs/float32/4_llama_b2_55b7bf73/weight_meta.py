class Program_weight_tensor_meta_transpose_3:
    name = "transpose_3"
    shape = [1, 1, 16, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.002
    std = 0.044
    data = None
    min_val = -0.1507493555545807
    max_val = 0.14703857898712158


class Program_weight_tensor_meta_unsqueeze_2:
    name = "unsqueeze_2"
    shape = [1, 1, 16, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.160
    std = 0.377
    data = None
    min_val = -0.9999902248382568
    max_val = 0.9999465346336365


class Program_weight_tensor_meta_mul_6:
    name = "mul_6"
    shape = [1, 1, 16, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.001
    std = 0.040
    data = None
    min_val = -0.12641242146492004
    max_val = 0.13118989765644073


class Program_weight_tensor_meta_getitem_10:
    name = "getitem_10"
    shape = [1, 1, 16, 32]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.001
    std = 0.044
    data = None
    min_val = -0.11130029708147049
    max_val = 0.11974108964204788


class Program_weight_tensor_meta_getitem_11:
    name = "getitem_11"
    shape = [1, 1, 16, 32]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.002
    std = 0.044
    data = None
    min_val = -0.12641385197639465
    max_val = 0.13118989765644073
