class Program_weight_tensor_meta_unsqueeze_2:
    name = "unsqueeze_2"
    shape = [1, 1, 128, 32]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.167
    std = 0.510
    data = None
    min_val = -0.9999902248382568
    max_val = 0.9999940991401672


class Program_weight_tensor_meta_mul_2:
    name = "mul_2"
    shape = [4, 2, 128, 32]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.034
    data = None
    stride = [8192, 32, 64, 1]
    min_val = -0.14263874292373657
    max_val = 0.17228519916534424


class Program_weight_tensor_meta_getitem_12:
    name = "getitem_12"
    shape = [4, 2, 128, 16]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.003
    std = 0.039
    data = None
    stride = [4096, 16, 32, 1]
    min_val = -0.1499672830104828
    max_val = 0.15155869722366333


class Program_weight_tensor_meta_getitem_13:
    name = "getitem_13"
    shape = [4, 2, 128, 16]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.002
    std = 0.042
    data = None
    stride = [4096, 16, 32, 1]
    min_val = -0.18284982442855835
    max_val = 0.1507180631160736
