class Program_weight_tensor_meta_transpose_4:
    name = "transpose_4"
    shape = [4, 128, 2, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.003
    std = 0.032
    data = None
    min_val = -0.09787275642156601
    max_val = 0.08566702902317047
