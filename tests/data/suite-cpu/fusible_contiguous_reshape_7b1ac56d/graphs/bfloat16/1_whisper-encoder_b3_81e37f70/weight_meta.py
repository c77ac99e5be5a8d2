class Program_weight_tensor_meta_transpose_3:
    name = "transpose_3"
    shape = [1, 32, 2, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.001
    std = 0.020
    data = None
    min_val = -0.05154382437467575
    max_val = 0.058247990906238556
