class Program_weight_tensor_meta_expand:
    name = "expand"
    shape = [1, 1, 16, 16]
    dtype = "torch.bool"
    device = "cpu"
    mean = None
    std = None
    data = None


class Program_weight_tensor_meta_add_4:
    name = "add_4"
    shape = [1, 2, 16, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.044
    data = None
    stride = [2048, 64, 128, 1]
    min_val = -0.1566057801246643
    max_val = 0.15321363508701324


class Program_weight_tensor_meta_reshape:
    name = "reshape"
    shape = [1, 2, 16, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.002
    std = 0.044
    data = None
    min_val = -0.13076159358024597
    max_val = 0.13118989765644073


class Program_weight_tensor_meta_reshape_1:
    name = "reshape_1"
    shape = [1, 2, 16, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.002
    std = 0.044
    data = None
    min_val = -0.1507493555545807
    max_val = 0.14703857898712158
