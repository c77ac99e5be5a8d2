class Program_weight_tensor_meta_expand_2:
    name = "expand_2"
    shape = [4, 1, 128, 128]
    dtype = "torch.bool"
    device = "cpu"
    mean = None
    std = None
    data = None


class Program_weight_tensor_meta_transpose:
    name = "transpose"
    shape = [4, 2, 128, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.049
    data = None
    stride = [16384, 64, 128, 1]
    min_val = -0.18827147781848907
    max_val = 0.19568881392478943


class Program_weight_tensor_meta_transpose_1:
    name = "transpose_1"
    shape = [4, 2, 128, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.047
    data = None
    stride = [16384, 64, 128, 1]
    min_val = -0.2044791877269745
    max_val = 0.19898417592048645


class Program_weight_tensor_meta_transpose_2:
    name = "transpose_2"
    shape = [4, 2, 128, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.003
    std = 0.048
    data = None
    stride = [16384, 64, 128, 1]
    min_val = -0.1984599381685257
    max_val = 0.17527109384536743
