class Program_weight_tensor_meta_L_self_modules_encoder_modules_layers_modules_1_modules_blocks_modules_0_dict_modules_layernorm_before_parameters_weight_:
    name = "L_self_modules_encoder_modules_layers_modules_1_modules_blocks_modules_0_dict_modules_layernorm_before_parameters_weight_"
    shape = [64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_layers_modules_1_modules_blocks_modules_0_dict_modules_layernorm_before_parameters_bias_:
    name = "L_self_modules_encoder_modules_layers_modules_1_modules_blocks_modules_0_dict_modules_layernorm_before_parameters_bias_"
    shape = [64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_linear_6:
    name = "linear_6"
    shape = [1, 16, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.001
    std = 0.046
    data = None
    min_val = -0.14471134543418884
    max_val = 0.1372651904821396
