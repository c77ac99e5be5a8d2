class Program_weight_tensor_meta_contiguous:
    name = "contiguous"
    shape = [1, 2, 32, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.000
    std = 0.006
    data = None
    min_val = -0.019322160631418228
    max_val = 0.027145860716700554


class Program_weight_tensor_meta_contiguous_1:
    name = "contiguous_1"
    shape = [1, 2, 32, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.047
    data = None
    min_val = -0.17057211697101593
    max_val = 0.18709206581115723


class Program_weight_tensor_meta_contiguous_2:
    name = "contiguous_2"
    shape = [1, 2, 32, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.001
    std = 0.050
    data = None
    min_val = -0.16909241676330566
    max_val = 0.20407986640930176
