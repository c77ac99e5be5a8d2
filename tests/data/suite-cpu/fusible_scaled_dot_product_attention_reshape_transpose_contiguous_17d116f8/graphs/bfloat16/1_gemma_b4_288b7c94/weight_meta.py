class Program_weight_tensor_meta_expand_2:
    name = "expand_2"
    shape = [4, 1, 128, 128]
    dtype = "torch.bool"
    device = "cpu"
    mean = None
    std = None
    data = None


class Program_weight_tensor_meta_add_5:
    name = "add_5"
    shape = [4, 2, 128, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.045
    data = None
    min_val = -0.1912783533334732
    max_val = 0.17606081068515778


class Program_weight_tensor_meta_reshape:
    name = "reshape"
    shape = [4, 2, 128, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.045
    data = None
    min_val = -0.18109533190727234
    max_val = 0.17844881117343903


class Program_weight_tensor_meta_reshape_1:
    name = "reshape_1"
    shape = [4, 2, 128, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.046
    data = None
    min_val = -0.1926710605621338
    max_val = 0.15988348424434662
