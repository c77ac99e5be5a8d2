class Program_weight_tensor_meta_transpose_6:
    name = "transpose_6"
    shape = [2, 1, 64, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.044
    data = None
    min_val = -0.1525794267654419
    max_val = 0.16007107496261597


class Program_weight_tensor_meta_transpose_7:
    name = "transpose_7"
    shape = [2, 1, 64, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.044
    data = None
    min_val = -0.17078381776809692
    max_val = 0.2027316391468048


class Program_weight_tensor_meta_unsqueeze_3:
    name = "unsqueeze_3"
    shape = [1, 1, 64, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.585
    std = 0.641
    data = None
    min_val = -1.0
    max_val = 1.0


class Program_weight_tensor_meta_unsqueeze_4:
    name = "unsqueeze_4"
    shape = [1, 1, 64, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.169
    std = 0.467
    data = None
    min_val = -0.9999902248382568
    max_val = 0.9999929666519165
