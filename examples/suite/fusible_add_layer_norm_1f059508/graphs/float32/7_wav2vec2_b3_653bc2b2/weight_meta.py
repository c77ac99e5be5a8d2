class Program_weight_tensor_meta_L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_weight_:
    name = "L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_bias_:
    name = "L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_dropout_1:
    name = "dropout_1"
    shape = [1, 79, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.003
    std = 1.002
    data = None
    min_val = -4.2058305740356445
    max_val = 3.3732123374938965


class Program_weight_tensor_meta_dropout_2:
    name = "dropout_2"
    shape = [1, 79, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.001
    std = 0.018
    data = None
    min_val = -0.03805585205554962
    max_val = 0.04491876810789108
