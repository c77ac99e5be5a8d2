class Program_weight_tensor_meta_L_self_modules_post_layernorm_parameters_weight_:
    name = "L_self_modules_post_layernorm_parameters_weight_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_post_layernorm_parameters_bias_:
    name = "L_self_modules_post_layernorm_parameters_bias_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_add_3:
    name = "add_3"
    shape = [2, 257, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.002
    std = 0.968
    data = None
    min_val = -4.5249924659729
    max_val = 4.679485321044922


class Program_weight_tensor_meta_linear_11:
    name = "linear_11"
    shape = [2, 257, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.002
    std = 0.024
    data = None
    min_val = -0.09754905104637146
    max_val = 0.07418278604745865
