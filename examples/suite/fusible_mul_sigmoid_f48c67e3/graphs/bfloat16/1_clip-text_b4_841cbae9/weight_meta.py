class Program_weight_tensor_meta_linear_4:
    name = "linear_4"
    shape = [8, 77, 256]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.006
    std = 0.140
    data = None
    min_val = -0.7500688433647156
    max_val = 0.4856124222278595
