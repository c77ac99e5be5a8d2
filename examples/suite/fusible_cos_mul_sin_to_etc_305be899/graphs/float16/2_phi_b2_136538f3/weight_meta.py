class Program_weight_tensor_meta_cat:
    name = "cat"
    shape = [1, 16, 32]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.071
    std = 2.439
    data = None
    min_val = 0.0
    max_val = 15.0
