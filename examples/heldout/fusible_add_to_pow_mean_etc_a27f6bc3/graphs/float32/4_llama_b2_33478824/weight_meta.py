class Program_weight_tensor_meta_L_args_0_modules_norm_parameters_weight_:
    name = "L_args_0_modules_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_add_12:
    name = "add_12"
    shape = [1, 16, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.004
    data = None
    min_val = -0.013806932605803013
    max_val = 0.016567792743444443


class Program_weight_tensor_meta_linear_13:
    name = "linear_13"
    shape = [1, 16, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None
    min_val = -0.00020205006876494735
    max_val = 0.0002031747135333717
