class Program_weight_tensor_meta_transpose:
    name = "transpose"
    shape = [8, 2, 77, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.002
    std = 0.091
    data = None
    min_val = -0.3863708972930908
    max_val = 0.3711659908294678


class Program_weight_tensor_meta_transpose_1:
    name = "transpose_1"
    shape = [8, 2, 77, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.002
    std = 0.089
    data = None
    min_val = -0.37668442726135254
    max_val = 0.37187573313713074


class Program_weight_tensor_meta_transpose_2:
    name = "transpose_2"
    shape = [8, 2, 77, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.003
    std = 0.089
    data = None
    min_val = -0.35462459921836853
    max_val = 0.4065174460411072
