class Program_weight_tensor_meta_where:
    name = "where"
    shape = [2, 1, 64, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = -167482717486150923188573152808785674240.000
    std = 170130787141351377851414016926280581120.000
    data = None
    min_val = -3.4028234663852886e+38
    max_val = 0.0


class Program_weight_tensor_meta_matmul:
    name = "matmul"
    shape = [2, 2, 64, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.015
    data = None
    min_val = -0.07139560580253601
    max_val = 0.06008892506361008
