class Program_weight_tensor_meta_transpose_3:
    name = "transpose_3"
    shape = [4, 1, 128, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.044
    data = None
    min_val = -0.18981030583381653
    max_val = 0.15973037481307983


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


class Program_weight_tensor_meta_mul_6:
    name = "mul_6"
    shape = [4, 1, 128, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.037
    data = None
    min_val = -0.16573192179203033
    max_val = 0.1805475801229477


class Program_weight_tensor_meta_getitem_10:
    name = "getitem_10"
    shape = [4, 1, 128, 32]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.043
    data = None
    min_val = -0.1522190421819687
    max_val = 0.18352080881595612


class Program_weight_tensor_meta_getitem_11:
    name = "getitem_11"
    shape = [4, 1, 128, 32]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.044
    data = None
    min_val = -0.18163266777992249
    max_val = 0.16894496977329254
