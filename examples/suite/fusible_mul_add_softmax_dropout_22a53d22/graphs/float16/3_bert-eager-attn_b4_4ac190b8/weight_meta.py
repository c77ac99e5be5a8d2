class Program_weight_tensor_meta_where:
    name = "where"
    shape = [4, 1, 128, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None
    min_val = 0.0
    max_val = 0.0


class Program_weight_tensor_meta_matmul:
    name = "matmul"
    shape = [4, 2, 128, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.008
    std = 0.016
    data = None
    min_val = -0.08871273696422577
    max_val = 0.06930743157863617
