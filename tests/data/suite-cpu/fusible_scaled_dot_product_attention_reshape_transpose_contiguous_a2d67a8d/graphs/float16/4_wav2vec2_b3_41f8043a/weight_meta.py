class Program_weight_tensor_meta_transpose_3:
    name = "transpose_3"
    shape = [1, 2, 79, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.003
    std = 0.050
    data = None
    min_val = -0.1844770610332489
    max_val = 0.21751359105110168


class Program_weight_tensor_meta_transpose_4:
    name = "transpose_4"
    shape = [1, 2, 79, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.002
    std = 0.049
    data = None
    min_val = -0.19525885581970215
    max_val = 0.17968353629112244


class Program_weight_tensor_meta_transpose_5:
    name = "transpose_5"
    shape = [1, 2, 79, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.001
    std = 0.049
    data = None
    min_val = -0.21964608132839203
    max_val = 0.2058640420436859
