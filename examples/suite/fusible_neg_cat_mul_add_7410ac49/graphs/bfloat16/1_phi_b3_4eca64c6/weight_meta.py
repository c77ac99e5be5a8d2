class Program_weight_tensor_meta_unsqueeze_2:
    name = "unsqueeze_2"
    shape = [1, 1, 128, 32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.167
    std = 0.510
    data = None
    min_val = -0.9999902248382568
    max_val = 0.9999940991401672


class Program_weight_tensor_meta_mul_4:
    name = "mul_4"
    shape = [4, 1, 128, 32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.002
    std = 0.035
    data = None
    min_val = -0.1346222460269928
    max_val = 0.15677763521671295


class Program_weight_tensor_meta_getitem_14:
    name = "getitem_14"
    shape = [4, 1, 128, 16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.006
    std = 0.040
    data = None
    min_val = -0.147598996758461
    max_val = 0.15703085064888


class Program_weight_tensor_meta_getitem_15:
    name = "getitem_15"
    shape = [4, 1, 128, 16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.004
    std = 0.042
    data = None
    min_val = -0.13874495029449463
    max_val = 0.15916696190834045
