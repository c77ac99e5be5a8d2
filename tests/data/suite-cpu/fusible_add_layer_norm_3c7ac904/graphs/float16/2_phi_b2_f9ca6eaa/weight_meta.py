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
    shape = [1, 16, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.004
    data = None
    min_val = -0.013864874839782715
    max_val = 0.01364058256149292


class Program_weight_tensor_meta_dropout_1:
    name = "dropout_1"
    shape = [1, 16, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.019
    data = None
    min_val = -0.04592473432421684
    max_val = 0.05079476907849312


class Program_weight_tensor_meta_dropout_2:
    name = "dropout_2"
    shape = [1, 16, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.021
    data = None
    min_val = -0.0425335057079792
    max_val = 0.06831813603639603
