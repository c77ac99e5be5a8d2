class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_2_modules_layers_modules_0_parameters_layer_scale_parameter_:
    name = "L_self_modules_encoder_modules_stages_modules_2_modules_layers_modules_0_parameters_layer_scale_parameter_"
    shape = [64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_weight_:
    name = "L_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_weight_"
    shape = [64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_bias_:
    name = "L_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_bias_"
    shape = [64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_conv2d_4:
    name = "conv2d_4"
    shape = [1, 64, 2, 2]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.051
    data = None
    min_val = -0.12662599980831146
    max_val = 0.14374256134033203


class Program_weight_tensor_meta_linear_5:
    name = "linear_5"
    shape = [1, 2, 2, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.002
    std = 0.019
    data = None
    min_val = -0.04468350112438202
    max_val = 0.0422789603471756
