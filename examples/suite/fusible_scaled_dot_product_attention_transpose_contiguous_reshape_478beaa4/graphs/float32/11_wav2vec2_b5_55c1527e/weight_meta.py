class Program_weight_tensor_meta_expand:
    name = "expand"
    shape = [4, 1, 799, 799]
    dtype = "torch.bool"
    device = "cpu"
    mean = None
    std = None
    data = None


class Program_weight_tensor_meta_transpose_3:
    name = "transpose_3"
    shape = [4, 2, 799, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.001
    std = 0.048
    data = None
    stride = [102272, 64, 128, 1]
    min_val = -0.21974267065525055
    max_val = 0.21935343742370605


class Program_weight_tensor_meta_transpose_4:
    name = "transpose_4"
    shape = [4, 2, 799, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.001
    std = 0.051
    data = None
    stride = [102272, 64, 128, 1]
    min_val = -0.24909628927707672
    max_val = 0.20994138717651367


class Program_weight_tensor_meta_transpose_5:
    name = "transpose_5"
    shape = [4, 2, 799, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.002
    std = 0.049
    data = None
    stride = [102272, 64, 128, 1]
    min_val = -0.21214675903320312
    max_val = 0.22402869164943695
