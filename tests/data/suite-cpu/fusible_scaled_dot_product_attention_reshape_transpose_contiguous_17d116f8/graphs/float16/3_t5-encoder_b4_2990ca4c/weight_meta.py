class Program_weight_tensor_meta_transpose:
    name = "transpose"
    shape = [4, 2, 128, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.025
    data = None
    min_val = -0.09687098860740662
    max_val = 0.09781521558761597


class Program_weight_tensor_meta_transpose_1:
    name = "transpose_1"
    shape = [4, 2, 128, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.001
    std = 0.199
    data = None
    min_val = -0.8643558025360107
    max_val = 0.8337690830230713


class Program_weight_tensor_meta_transpose_2:
    name = "transpose_2"
    shape = [4, 2, 128, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.201
    data = None
    min_val = -0.8591772317886353
    max_val = 0.8356571197509766


class Program_weight_tensor_meta_contiguous:
    name = "contiguous"
    shape = [1, 2, 128, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.012
    std = 0.014
    data = None
    min_val = -0.04865870624780655
    max_val = 0.015264046378433704
