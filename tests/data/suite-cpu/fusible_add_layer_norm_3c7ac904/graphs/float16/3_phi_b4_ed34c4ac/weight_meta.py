class Program_weight_tensor_meta_L_self_modules_layers_modules_1_modules_input_layernorm_parameters_weight_:
    name = "L_self_modules_layers_modules_1_modules_input_layernorm_parameters_weight_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_layers_modules_1_modules_input_layernorm_parameters_bias_:
    name = "L_self_modules_layers_modules_1_modules_input_layernorm_parameters_bias_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_dropout:
    name = "dropout"
    shape = [4, 128, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.004
    data = None
    min_val = -0.016504088416695595
    max_val = 0.018250782042741776


class Program_weight_tensor_meta_dropout_1:
    name = "dropout_1"
    shape = [4, 128, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.019
    data = None
    min_val = -0.04513918608427048
    max_val = 0.05152466520667076


class Program_weight_tensor_meta_dropout_2:
    name = "dropout_2"
    shape = [4, 128, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.021
    data = None
    min_val = -0.044643647968769073
    max_val = 0.06930001825094223
