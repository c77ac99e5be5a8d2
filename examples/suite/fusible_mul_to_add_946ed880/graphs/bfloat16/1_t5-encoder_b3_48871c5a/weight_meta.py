class Program_weight_tensor_meta_truediv_1:
    name = "truediv_1"
    shape = [128, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.474
    std = 0.368
    data = None
    min_val = -0.75
    max_val = 0.99717116355896
