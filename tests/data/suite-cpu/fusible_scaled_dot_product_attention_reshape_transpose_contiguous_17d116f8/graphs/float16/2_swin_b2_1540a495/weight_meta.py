class Program_weight_tensor_meta_transpose_2:
    name = "transpose_2"
    shape = [4, 2, 16, 16]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.024
    data = None
    min_val = -0.08979350328445435
    max_val = 0.09296476095914841


class Program_weight_tensor_meta_transpose_3:
    name = "transpose_3"
    shape = [4, 2, 16, 16]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.023
    data = None
    min_val = -0.08277484774589539
    max_val = 0.08077745884656906


class Program_weight_tensor_meta_transpose_4:
    name = "transpose_4"
    shape = [4, 2, 16, 16]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.024
    data = None
    min_val = -0.07944563031196594
    max_val = 0.0786023810505867


class Program_weight_tensor_meta_unsqueeze:
    name = "unsqueeze"
    shape = [1, 2, 16, 16]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.002
    std = 0.018
    data = None
    min_val = -0.03576091304421425
    max_val = 0.05605967715382576
