class Program_weight_tensor_meta_linear_4:
    name = "linear_4"
    shape = [2, 257, 256]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.141
    data = None
    min_val = -0.6060436367988586
    max_val = 0.5859463214874268
