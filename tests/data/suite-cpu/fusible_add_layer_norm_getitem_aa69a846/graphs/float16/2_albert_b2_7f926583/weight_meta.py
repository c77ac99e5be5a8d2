class Program_weight_tensor_meta_L_self_modules_encoder_modules_albert_layer_groups_modules_0_modules_albert_layers_modules_0_modules_full_layer_layer_norm_parameters_weight_:
    name = "L_self_modules_encoder_modules_albert_layer_groups_modules_0_modules_albert_layers_modules_0_modules_full_layer_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_albert_layer_groups_modules_0_modules_albert_layers_modules_0_modules_full_layer_layer_norm_parameters_bias_:
    name = "L_self_modules_encoder_modules_albert_layer_groups_modules_0_modules_albert_layers_modules_0_modules_full_layer_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_layer_norm_3:
    name = "layer_norm_3"
    shape = [1, 16, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.017
    std = 1.018
    data = None
    min_val = -3.5314929485321045
    max_val = 3.6001594066619873


class Program_weight_tensor_meta_linear_12:
    name = "linear_12"
    shape = [1, 16, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.020
    data = None
    min_val = -0.04688922315835953
    max_val = 0.05198269337415695
