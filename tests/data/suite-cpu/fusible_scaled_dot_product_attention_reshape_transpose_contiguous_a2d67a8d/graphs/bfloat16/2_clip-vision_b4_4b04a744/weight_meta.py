class Program_weight_tensor_meta_transpose_1:
    name = "transpose_1"
    shape = [2, 2, 257, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.002
    std = 0.103
    data = None
    min_val = -0.42402490973472595
    max_val = 0.46597954630851746


class Program_weight_tensor_meta_transpose_2:
    name = "transpose_2"
    shape = [2, 2, 257, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.003
    std = 0.100
    data = None
    min_val = -0.4720642566680908
    max_val = 0.4558015763759613


class Program_weight_tensor_meta_transpose_3:
    name = "transpose_3"
    shape = [2, 2, 257, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.001
    std = 0.102
    data = None
    min_val = -0.4110349416732788
    max_val = 0.4091547727584839
