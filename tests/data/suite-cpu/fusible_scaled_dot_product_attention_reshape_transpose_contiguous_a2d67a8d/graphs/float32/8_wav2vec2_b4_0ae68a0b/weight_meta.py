class Program_weight_tensor_meta_transpose_3:
    name = "transpose_3"
    shape = [4, 2, 799, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.001
    std = 0.048
    data = None
    min_val = -0.21974271535873413
    max_val = 0.21935342252254486


class Program_weight_tensor_meta_transpose_4:
    name = "transpose_4"
    shape = [4, 2, 799, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.001
    std = 0.051
    data = None
    min_val = -0.24909628927707672
    max_val = 0.20994140207767487


class Program_weight_tensor_meta_transpose_5:
    name = "transpose_5"
    shape = [4, 2, 799, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.002
    std = 0.049
    data = None
    min_val = -0.21214675903320312
    max_val = 0.22402869164943695
