class Program_weight_tensor_meta_where:
    name = "where"
    shape = [4, 1, 128, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = -168811945402707676547212622275522068480.000
    std = 170137278992862109133463710128247144448.000
    data = None
    min_val = -3.4028234663852886e+38
    max_val = 0.0


class Program_weight_tensor_meta_matmul:
    name = "matmul"
    shape = [4, 2, 128, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.003
    std = 0.016
    data = None
    min_val = -0.06215894967317581
    max_val = 0.07667628675699234
