class Program_weight_tensor_meta_linear:
    name = "linear"
    shape = [4, 256, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.049
    data = None
    min_val = -0.20331233739852905
    max_val = 0.20156913995742798
