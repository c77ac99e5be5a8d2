class Program_weight_tensor_meta_L_args_0_modules_norm_parameters_weight_:
    name = "L_args_0_modules_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_add_12:
    name = "add_12"
    shape = [2, 64, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.004
    data = None
    min_val = -0.016202565282583237
    max_val = 0.01633165217936039


class Program_weight_tensor_meta_linear_13:
    name = "linear_13"
    shape = [2, 64, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.000
    data = None
    min_val = -0.00028521311469376087
    max_val = 0.00024832109920680523
