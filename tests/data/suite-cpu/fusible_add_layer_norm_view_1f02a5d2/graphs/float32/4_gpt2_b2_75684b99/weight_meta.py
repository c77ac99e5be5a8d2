class Program_weight_tensor_meta_L_self_modules_h_modules_0_modules_ln_2_parameters_weight_:
    name = "L_self_modules_h_modules_0_modules_ln_2_parameters_weight_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_h_modules_0_modules_ln_2_parameters_bias_:
    name = "L_self_modules_h_modules_0_modules_ln_2_parameters_bias_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_dropout:
    name = "dropout"
    shape = [1, 16, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.000
    std = 0.006
    data = None
    min_val = -0.02131110429763794
    max_val = 0.019099002704024315


class Program_weight_tensor_meta_dropout_2:
    name = "dropout_2"
    shape = [1, 16, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.003
    std = 0.019
    data = None
    min_val = -0.06499049067497253
    max_val = 0.05708489939570427
