class Program_weight_tensor_meta_transpose_6:
    name = "transpose_6"
    shape = [1, 1, 16, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.001
    std = 0.044
    data = None
    min_val = -0.12838076055049896
    max_val = 0.12803325057029724


class Program_weight_tensor_meta_transpose_7:
    name = "transpose_7"
    shape = [1, 1, 16, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.001
    std = 0.045
    data = None
    min_val = -0.16818498075008392
    max_val = 0.12145284563302994


class Program_weight_tensor_meta_unsqueeze_3:
    name = "unsqueeze_3"
    shape = [1, 1, 16, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.741
    std = 0.533
    data = None
    min_val = -0.9997860789299011
    max_val = 1.0


class Program_weight_tensor_meta_unsqueeze_4:
    name = "unsqueeze_4"
    shape = [1, 1, 16, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.160
    std = 0.377
    data = None
    min_val = -0.9999902248382568
    max_val = 0.9999465346336365
