class Program_weight_tensor_meta_linear:
    name = "linear"
    shape = [1, 32, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.050
    data = None
    min_val = -0.15457728505134583
    max_val = 0.21716688573360443
