class Program_weight_tensor_meta_unsqueeze_2:
    name = "unsqueeze_2"
    shape = [1, 1, 16, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.160
    std = 0.377
    data = None
    min_val = -0.9999902248382568
    max_val = 0.9999465346336365


class Program_weight_tensor_meta_mul_4:
    name = "mul_4"
    shape = [1, 2, 16, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.040
    data = None
    stride = [2048, 64, 128, 1]
    min_val = -0.13999125361442566
    max_val = 0.15325738489627838


class Program_weight_tensor_meta_getitem_8:
    name = "getitem_8"
    shape = [1, 2, 16, 32]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.002
    std = 0.045
    data = None
    stride = [1024, 32, 64, 1]
    min_val = -0.15256279706954956
    max_val = 0.15325798094272614


class Program_weight_tensor_meta_getitem_9:
    name = "getitem_9"
    shape = [1, 2, 16, 32]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.002
    std = 0.043
    data = None
    stride = [1024, 32, 64, 1]
    min_val = -0.12673741579055786
    max_val = 0.1461881697177887
