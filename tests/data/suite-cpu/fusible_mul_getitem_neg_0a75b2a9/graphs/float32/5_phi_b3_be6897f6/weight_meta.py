class Program_weight_tensor_meta_getitem_9:
    name = "getitem_9"
    shape = [4, 2, 128, 32]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.001
    std = 0.041
    data = None
    min_val = -0.18284982442855835
    max_val = 0.15155869722366333


class Program_weight_tensor_meta_unsqueeze_1:
    name = "unsqueeze_1"
    shape = [1, 1, 128, 32]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.495
    std = 0.683
    data = None
    min_val = -1.0
    max_val = 1.0
