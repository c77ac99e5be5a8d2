class Program_weight_tensor_meta_contiguous:
    name = "contiguous"
    shape = [4, 2, 256, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.006
    data = None
    min_val = -0.02541404217481613
    max_val = 0.025196142494678497


class Program_weight_tensor_meta_contiguous_1:
    name = "contiguous_1"
    shape = [4, 2, 256, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.045
    data = None
    min_val = -0.18868529796600342
    max_val = 0.1815468668937683


class Program_weight_tensor_meta_contiguous_2:
    name = "contiguous_2"
    shape = [4, 2, 256, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.003
    std = 0.049
    data = None
    min_val = -0.18605203926563263
    max_val = 0.2448509931564331
