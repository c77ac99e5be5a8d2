class Program_weight_tensor_meta_linear_4:
    name = "linear_4"
    shape = [1, 16, 256]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.006
    std = 0.141
    data = None
    min_val = -0.645121157169342
    max_val = 0.4160482883453369
