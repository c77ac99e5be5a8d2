class Program_weight_tensor_meta_L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_:
    name = "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_"
    shape = [16]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_:
    name = "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_"
    shape = [16]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_layer_norm:
    name = "layer_norm"
    shape = [2, 1024, 16]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.000
    std = 0.939
    data = None
    min_val = -3.243252754211426
    max_val = 3.036377191543579


class Program_weight_tensor_meta_dropout:
    name = "dropout"
    shape = [2, 1024, 16]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.000
    std = 0.000
    data = None
    min_val = -0.00018740359519142658
    max_val = 0.0001402902853442356
