class Program_weight_tensor_meta_embedding:
    name = "embedding"
    shape = [1, 16, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.004
    data = None
    min_val = -0.013864874839782715
    max_val = 0.01364058256149292


class Program_weight_tensor_meta_cat:
    name = "cat"
    shape = [1, 16, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.937
    std = 2.159
    data = None
    min_val = 0.0
    max_val = 15.0


class Program_weight_tensor_meta_mul:
    name = "mul"
    shape = [1, 16, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.741
    std = 0.533
    data = None
    min_val = -0.9997860789299011
    max_val = 1.0
