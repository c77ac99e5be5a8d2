class Program_weight_tensor_meta_transpose_4:
    name = "transpose_4"
    shape = [1, 16, 2, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.004
    std = 0.033
    data = None
    min_val = -0.10072526335716248
    max_val = 0.09228770434856415
