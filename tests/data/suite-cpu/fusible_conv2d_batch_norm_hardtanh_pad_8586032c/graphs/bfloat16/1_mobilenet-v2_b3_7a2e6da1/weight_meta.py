class Program_weight_tensor_meta_L_self_modules_layer_modules_0_modules_expand_1x1_modules_convolution_parameters_weight_:
    name = "L_self_modules_layer_modules_0_modules_expand_1x1_modules_convolution_parameters_weight_"
    shape = [48, 8, 1, 1]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.001
    std = 0.020
    data = None
    min_val = -0.05967864766716957
    max_val = 0.05109889805316925


class Program_weight_tensor_meta_L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_buffers_running_mean_:
    name = "L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_buffers_running_mean_"
    shape = [48]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_buffers_running_var_:
    name = "L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_buffers_running_var_"
    shape = [48]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_parameters_weight_:
    name = "L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_parameters_weight_"
    shape = [48]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_parameters_bias_:
    name = "L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_parameters_bias_"
    shape = [48]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_pad_3:
    name = "pad_3"
    shape = [1, 8, 16, 16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.000
    data = None
    min_val = -1.5120916714295163e-06
    max_val = 1.4741309541932424e-06
