class Program_weight_tensor_meta_embedding:
    name = "embedding"
    shape = [4, 128, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.004
    data = None
    min_val = -0.016504088416695595
    max_val = 0.018250782042741776


class Program_weight_tensor_meta_cat:
    name = "cat"
    shape = [1, 128, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 7.933
    std = 17.958
    data = None
    min_val = 0.0
    max_val = 127.0


class Program_weight_tensor_meta_mul:
    name = "mul"
    shape = [1, 128, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.504
    std = 0.680
    data = None
    min_val = -1.0
    max_val = 1.0
