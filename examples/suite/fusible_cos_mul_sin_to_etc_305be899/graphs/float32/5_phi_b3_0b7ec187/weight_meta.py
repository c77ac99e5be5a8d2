class Program_weight_tensor_meta_cat:
    name = "cat"
    shape = [1, 128, 32]
    dtype = "torch.float32"
    device = "cpu"
    mean = 9.067
    std = 20.279
    data = None
    min_val = 0.0
    max_val = 127.0
