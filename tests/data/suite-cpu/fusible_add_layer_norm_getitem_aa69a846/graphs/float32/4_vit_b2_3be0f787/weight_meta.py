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


class Program_weight_tensor_meta_add_3:
    name = "add_3"
    shape = [1, 17, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.004
    std = 0.040
    data = None
    min_val = -0.13000398874282837
    max_val = 0.10371697694063187


class Program_weight_tensor_meta_dropout_4:
    name = "dropout_4"
    shape = [1, 17, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.002
    std = 0.020
    data = None
    min_val = -0.06259317696094513
    max_val = 0.044795598834753036
