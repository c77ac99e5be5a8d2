class Program_weight_tensor_meta_L_self_modules_stages_modules_1_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_:
    name = "L_self_modules_stages_modules_1_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_"
    shape = [32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_stages_modules_1_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_:
    name = "L_self_modules_stages_modules_1_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_"
    shape = [32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_layer_norm_5:
    name = "layer_norm_5"
    shape = [2, 256, 32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.997
    data = None
    min_val = -3.780339002609253
    max_val = 3.701399803161621


class Program_weight_tensor_meta_dropout_3:
    name = "dropout_3"
    shape = [2, 256, 32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None
    min_val = -0.00030362934921868145
    max_val = 0.000482594536151737
