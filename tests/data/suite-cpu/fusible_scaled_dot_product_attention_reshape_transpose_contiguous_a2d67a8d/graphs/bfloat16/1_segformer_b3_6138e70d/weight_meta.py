class Program_weight_tensor_meta_transpose_1:
    name = "transpose_1"
    shape = [2, 1, 1024, 16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.015
    data = None
    min_val = -0.06010347604751587
    max_val = 0.05846136435866356


class Program_weight_tensor_meta_transpose_4:
    name = "transpose_4"
    shape = [2, 1, 16, 16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.016
    data = None
    min_val = -0.04581175372004509
    max_val = 0.03933918848633766


class Program_weight_tensor_meta_transpose_5:
    name = "transpose_5"
    shape = [2, 1, 16, 16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.015
    data = None
    min_val = -0.05317699909210205
    max_val = 0.036868300288915634
