class Program_weight_tensor_meta_unsqueeze_2:
    name = "unsqueeze_2"
    shape = [1, 1, 16, 32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.168
    std = 0.388
    data = None
    min_val = -0.9999902248382568
    max_val = 0.9999465346336365


class Program_weight_tensor_meta_mul_4:
    name = "mul_4"
    shape = [1, 1, 16, 32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.001
    std = 0.036
    data = None
    min_val = -0.09354674071073532
    max_val = 0.11963323503732681


class Program_weight_tensor_meta_getitem_14:
    name = "getitem_14"
    shape = [1, 1, 16, 16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.009
    std = 0.039
    data = None
    min_val = -0.09842802584171295
    max_val = 0.08539868146181107


class Program_weight_tensor_meta_getitem_15:
    name = "getitem_15"
    shape = [1, 1, 16, 16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.006
    std = 0.039
    data = None
    min_val = -0.09354676306247711
    max_val = 0.1229027509689331
