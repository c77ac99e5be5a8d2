class Program_weight_tensor_meta_L_self_modules_feature_projection_modules_layer_norm_parameters_weight_:
    name = "L_self_modules_feature_projection_modules_layer_norm_parameters_weight_"
    shape = [32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_feature_projection_modules_layer_norm_parameters_bias_:
    name = "L_self_modules_feature_projection_modules_layer_norm_parameters_bias_"
    shape = [32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_conv1d_2:
    name = "conv1d_2"
    shape = [4, 32, 799]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.002
    std = 0.028
    data = None
    min_val = -0.19419509172439575
    max_val = 0.1812114119529724
