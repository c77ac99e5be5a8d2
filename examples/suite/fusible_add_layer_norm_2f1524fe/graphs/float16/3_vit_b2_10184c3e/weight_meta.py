class Program_weight_tensor_meta_L_self_modules_layers_modules_0_modules_layernorm_after_parameters_weight_:
    name = "L_self_modules_layers_modules_0_modules_layernorm_after_parameters_weight_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_layers_modules_0_modules_layernorm_after_parameters_bias_:
    name = "L_self_modules_layers_modules_0_modules_layernorm_after_parameters_bias_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_dropout:
    name = "dropout"
    shape = [1, 17, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.023
    data = None
    min_val = -0.08536262810230255
    max_val = 0.06481561809778214


class Program_weight_tensor_meta_dropout_1:
    name = "dropout_1"
    shape = [1, 17, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.017
    data = None
    min_val = -0.04634181410074234
    max_val = 0.0536680668592453
