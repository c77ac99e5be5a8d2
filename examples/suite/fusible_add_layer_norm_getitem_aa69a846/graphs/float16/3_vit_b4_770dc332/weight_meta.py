class Program_weight_tensor_meta_L_self_modules_layernorm_parameters_weight_:
    name = "L_self_modules_layernorm_parameters_weight_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_layernorm_parameters_bias_:
    name = "L_self_modules_layernorm_parameters_bias_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_add_5:
    name = "add_5"
    shape = [2, 257, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.001
    std = 0.039
    data = None
    min_val = -0.1294489949941635
    max_val = 0.15064497292041779


class Program_weight_tensor_meta_dropout_4:
    name = "dropout_4"
    shape = [2, 257, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.001
    std = 0.020
    data = None
    min_val = -0.05432486534118652
    max_val = 0.051950935274362564
