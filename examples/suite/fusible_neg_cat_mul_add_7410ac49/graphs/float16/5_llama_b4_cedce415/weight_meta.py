class Program_weight_tensor_meta_unsqueeze_2:
    name = "unsqueeze_2"
    shape = [1, 1, 128, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.170
    std = 0.505
    data = None
    min_val = -0.9999902248382568
    max_val = 0.9999983310699463


class Program_weight_tensor_meta_mul_4:
    name = "mul_4"
    shape = [4, 2, 128, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.037
    data = None
    stride = [16384, 64, 128, 1]
    min_val = -0.1704472154378891
    max_val = 0.17169497907161713


class Program_weight_tensor_meta_getitem_8:
    name = "getitem_8"
    shape = [4, 2, 128, 32]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.044
    data = None
    stride = [8192, 32, 64, 1]
    min_val = -0.17059093713760376
    max_val = 0.17262618243694305


class Program_weight_tensor_meta_getitem_9:
    name = "getitem_9"
    shape = [4, 2, 128, 32]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.043
    data = None
    stride = [8192, 32, 64, 1]
    min_val = -0.1702902466058731
    max_val = 0.15901021659374237
