class Program_weight_tensor_meta_truediv_1:
    name = "truediv_1"
    shape = [16, 16]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.217
    std = 0.282
    data = None
    min_val = -0.75
    max_val = 0.22672264277935028
