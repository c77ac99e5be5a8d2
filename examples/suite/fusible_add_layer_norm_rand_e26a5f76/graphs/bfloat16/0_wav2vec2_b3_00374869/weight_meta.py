class Program_weight_tensor_meta_L_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_:
    name = "L_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_:
    name = "L_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_layer_norm_2:
    name = "layer_norm_2"
    shape = [1, 79, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.004
    std = 0.989
    data = None
    min_val = -4.273099422454834
    max_val = 3.6149916648864746


class Program_weight_tensor_meta_dropout_4:
    name = "dropout_4"
    shape = [1, 79, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.002
    std = 0.020
    data = None
    min_val = -0.044140785932540894
    max_val = 0.07949655503034592
