class Program_weight_tensor_meta_mul:
    name = "mul"
    shape = [1, 16, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.001
    std = 0.044
    data = None
    min_val = -0.15686315298080444
    max_val = 0.15432557463645935


class Program_weight_tensor_meta_cat:
    name = "cat"
    shape = [1, 16, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.937
    std = 2.159
    data = None
    min_val = 0.0
    max_val = 15.0


class Program_weight_tensor_meta_mul_1:
    name = "mul_1"
    shape = [1, 16, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.741
    std = 0.533
    data = None
    min_val = -0.9997860789299011
    max_val = 1.0
