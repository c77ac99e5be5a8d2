class Program_weight_tensor_meta_L_self_modules_layernorm_parameters_weight_:
    name = "L_self_modules_layernorm_parameters_weight_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_layernorm_parameters_bias_:
    name = "L_self_modules_layernorm_parameters_bias_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_add_5:
    name = "add_5"
    shape = [1, 17, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.004
    std = 0.040
    data = None
    min_val = -0.1300087869167328
    max_val = 0.10371559858322144


class Program_weight_tensor_meta_dropout_4:
    name = "dropout_4"
    shape = [1, 17, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.002
    std = 0.020
    data = None
    min_val = -0.06259333342313766
    max_val = 0.04479554295539856
