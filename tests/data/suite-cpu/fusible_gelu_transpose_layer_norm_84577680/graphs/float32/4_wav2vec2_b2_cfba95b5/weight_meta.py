class Program_weight_tensor_meta_L_self_modules_feature_projection_modules_layer_norm_parameters_weight_:
    name = "L_self_modules_feature_projection_modules_layer_norm_parameters_weight_"
    shape = [32]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_feature_projection_modules_layer_norm_parameters_bias_:
    name = "L_self_modules_feature_projection_modules_layer_norm_parameters_bias_"
    shape = [32]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_conv1d_2:
    name = "conv1d_2"
    shape = [1, 32, 79]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.001
    std = 0.027
    data = None
    min_val = -0.09701057523488998
    max_val = 0.09818866848945618
