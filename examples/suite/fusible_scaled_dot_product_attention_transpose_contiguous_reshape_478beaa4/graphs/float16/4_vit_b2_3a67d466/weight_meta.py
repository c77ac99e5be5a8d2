class Program_weight_tensor_meta_expand_1:
    name = "expand_1"
    shape = [1, 1, 17, 17]
    dtype = "torch.bool"
    device = "cpu"
    mean = None
    std = None
    data = None


class Program_weight_tensor_meta_transpose_1:
    name = "transpose_1"
    shape = [1, 2, 17, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.001
    std = 0.046
    data = None
    stride = [2176, 64, 128, 1]
    min_val = -0.1451893448829651
    max_val = 0.13939544558525085


class Program_weight_tensor_meta_transpose_2:
    name = "transpose_2"
    shape = [1, 2, 17, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.049
    data = None
    stride = [2176, 64, 128, 1]
    min_val = -0.15464532375335693
    max_val = 0.15054547786712646


class Program_weight_tensor_meta_transpose_3:
    name = "transpose_3"
    shape = [1, 2, 17, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.001
    std = 0.051
    data = None
    stride = [2176, 64, 128, 1]
    min_val = -0.1585332304239273
    max_val = 0.16654622554779053
