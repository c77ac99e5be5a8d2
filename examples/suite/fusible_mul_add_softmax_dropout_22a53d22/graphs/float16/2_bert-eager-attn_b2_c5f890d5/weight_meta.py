class Program_weight_tensor_meta_where:
    name = "where"
    shape = [1, 1, 16, 16]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None
    min_val = 0.0
    max_val = 0.0


class Program_weight_tensor_meta_matmul:
    name = "matmul"
    shape = [1, 2, 16, 16]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.010
    std = 0.015
    data = None
    min_val = -0.04981781542301178
    max_val = 0.03108832612633705
