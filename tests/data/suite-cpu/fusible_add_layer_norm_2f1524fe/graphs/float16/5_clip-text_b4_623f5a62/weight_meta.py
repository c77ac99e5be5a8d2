class Program_weight_tensor_meta_L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm2_parameters_weight_:
    name = "L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm2_parameters_weight_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm2_parameters_bias_:
    name = "L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm2_parameters_bias_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_add:
    name = "add"
    shape = [8, 77, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.006
    data = None
    min_val = -0.025279231369495392
    max_val = 0.025764131918549538


class Program_weight_tensor_meta_linear_3:
    name = "linear_3"
    shape = [8, 77, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.002
    std = 0.022
    data = None
    min_val = -0.07500449568033218
    max_val = 0.0739499032497406
