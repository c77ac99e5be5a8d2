class Program_weight_tensor_meta_L_self_modules_layer_modules_1_modules_conv_3x3_modules_convolution_parameters_weight_:
    name = "L_self_modules_layer_modules_1_modules_conv_3x3_modules_convolution_parameters_weight_"
    shape = [48, 1, 3, 3]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.001
    std = 0.021
    data = None
    min_val = -0.06498925387859344
    max_val = 0.06253869831562042


class Program_weight_tensor_meta_L_self_modules_layer_modules_1_modules_conv_3x3_modules_normalization_buffers_running_mean_:
    name = "L_self_modules_layer_modules_1_modules_conv_3x3_modules_normalization_buffers_running_mean_"
    shape = [48]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_L_self_modules_layer_modules_1_modules_conv_3x3_modules_normalization_buffers_running_var_:
    name = "L_self_modules_layer_modules_1_modules_conv_3x3_modules_normalization_buffers_running_var_"
    shape = [48]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_layer_modules_1_modules_conv_3x3_modules_normalization_parameters_weight_:
    name = "L_self_modules_layer_modules_1_modules_conv_3x3_modules_normalization_parameters_weight_"
    shape = [48]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_layer_modules_1_modules_conv_3x3_modules_normalization_parameters_bias_:
    name = "L_self_modules_layer_modules_1_modules_conv_3x3_modules_normalization_parameters_bias_"
    shape = [48]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_pad_7:
    name = "pad_7"
    shape = [1, 48, 10, 10]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None
    min_val = 0.0
    max_val = 1.7880892621592592e-14
