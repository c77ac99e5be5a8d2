class Program_weight_tensor_meta_L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_:
    name = "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_"
    shape = [16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_:
    name = "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_"
    shape = [16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_layer_norm:
    name = "layer_norm"
    shape = [1, 64, 16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.936
    data = None
    min_val = -2.591634511947632
    max_val = 2.7404141426086426


class Program_weight_tensor_meta_dropout:
    name = "dropout"
    shape = [1, 64, 16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.000
    data = None
    min_val = -0.0005148834316059947
    max_val = 0.0003778359096031636
