class Program_weight_tensor_meta_L_self_modules_layer_norm_parameters_weight_:
    name = "L_self_modules_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_layer_norm_parameters_bias_:
    name = "L_self_modules_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_add_3:
    name = "add_3"
    shape = [1, 32, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.419
    std = 0.117
    data = None
    stride = [4096, 1, 32]
    min_val = 0.032757844775915146
    max_val = 0.8889908194541931


class Program_weight_tensor_meta_dropout_6:
    name = "dropout_6"
    shape = [1, 32, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.001
    std = 0.020
    data = None
    min_val = -0.05918349325656891
    max_val = 0.05319292098283768
