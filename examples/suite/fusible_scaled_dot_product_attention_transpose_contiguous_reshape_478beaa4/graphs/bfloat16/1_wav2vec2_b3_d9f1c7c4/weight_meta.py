class Program_weight_tensor_meta_expand:
    name = "expand"
    shape = [1, 1, 79, 79]
    dtype = "torch.bool"
    device = "cpu"
    mean = None
    std = None
    data = None


class Program_weight_tensor_meta_transpose_3:
    name = "transpose_3"
    shape = [1, 2, 79, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.003
    std = 0.050
    data = None
    stride = [10112, 64, 128, 1]
    min_val = -0.1844770312309265
    max_val = 0.21751362085342407


class Program_weight_tensor_meta_transpose_4:
    name = "transpose_4"
    shape = [1, 2, 79, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.002
    std = 0.049
    data = None
    stride = [10112, 64, 128, 1]
    min_val = -0.19525882601737976
    max_val = 0.17968355119228363


class Program_weight_tensor_meta_transpose_5:
    name = "transpose_5"
    shape = [1, 2, 79, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.001
    std = 0.049
    data = None
    stride = [10112, 64, 128, 1]
    min_val = -0.21964606642723083
    max_val = 0.2058640420436859
