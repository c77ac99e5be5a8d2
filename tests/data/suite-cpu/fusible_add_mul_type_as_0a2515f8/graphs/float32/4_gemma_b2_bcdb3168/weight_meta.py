class Program_weight_tensor_meta_mul:
    name = "mul"
    shape = [1, 16, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.001
    std = 0.044
    data = None
    min_val = -0.15686315298080444
    max_val = 0.15432557463645935


class Program_weight_tensor_meta_mul_4:
    name = "mul_4"
    shape = [1, 16, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.033
    std = 0.999
    data = None
    min_val = -3.430626153945923
    max_val = 3.425018548965454


class Program_weight_tensor_meta_float_3:
    name = "float_3"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.001
    std = 0.020
    data = None
    min_val = -0.04825557768344879
    max_val = 0.05190996080636978
