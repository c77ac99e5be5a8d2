class Program_weight_tensor_meta_expand_1:
    name = "expand_1"
    shape = [1, 1, 16, 16]
    dtype = "torch.bool"
    device = "cpu"
    mean = None
    std = None
    data = None


class Program_weight_tensor_meta_add_5:
    name = "add_5"
    shape = [1, 2, 16, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.045
    data = None
    min_val = -0.16384685039520264
    max_val = 0.16136851906776428


class Program_weight_tensor_meta_reshape:
    name = "reshape"
    shape = [1, 2, 16, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.002
    std = 0.045
    data = None
    min_val = -0.12921787798404694
    max_val = 0.14133836328983307


class Program_weight_tensor_meta_reshape_1:
    name = "reshape_1"
    shape = [1, 2, 16, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.001
    std = 0.045
    data = None
    min_val = -0.15827028453350067
    max_val = 0.14783713221549988
