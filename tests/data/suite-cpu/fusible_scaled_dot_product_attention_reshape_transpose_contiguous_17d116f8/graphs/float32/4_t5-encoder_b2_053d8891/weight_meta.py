class Program_weight_tensor_meta_transpose:
    name = "transpose"
    shape = [1, 2, 16, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.025
    data = None
    min_val = -0.0870281308889389
    max_val = 0.08702584356069565


class Program_weight_tensor_meta_transpose_1:
    name = "transpose_1"
    shape = [1, 2, 16, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.005
    std = 0.199
    data = None
    min_val = -0.6848110556602478
    max_val = 0.6665456295013428


class Program_weight_tensor_meta_transpose_2:
    name = "transpose_2"
    shape = [1, 2, 16, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.005
    std = 0.202
    data = None
    min_val = -0.6332994699478149
    max_val = 0.666492223739624


class Program_weight_tensor_meta_contiguous:
    name = "contiguous"
    shape = [1, 2, 16, 16]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.017
    std = 0.014
    data = None
    min_val = -0.04865870624780655
    max_val = 0.011325943283736706
