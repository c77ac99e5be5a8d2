class Program_weight_tensor_meta_L_self_modules_layer_modules_2_modules_conv_3x3_modules_convolution_parameters_weight_:
    name = "L_self_modules_layer_modules_2_modules_conv_3x3_modules_convolution_parameters_weight_"
    shape = [48, 1, 3, 3]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.001
    std = 0.020
    data = None
    min_val = -0.05281274765729904
    max_val = 0.05757919326424599


class Program_weight_tensor_meta_L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_buffers_running_mean_:
    name = "L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_buffers_running_mean_"
    shape = [48]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_buffers_running_var_:
    name = "L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_buffers_running_var_"
    shape = [48]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_parameters_weight_:
    name = "L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_parameters_weight_"
    shape = [48]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_parameters_bias_:
    name = "L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_parameters_bias_"
    shape = [48]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_pad_10:
    name = "pad_10"
    shape = [1, 48, 9, 9]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None
    min_val = 0.0
    max_val = 1.9969259129311648e-14
