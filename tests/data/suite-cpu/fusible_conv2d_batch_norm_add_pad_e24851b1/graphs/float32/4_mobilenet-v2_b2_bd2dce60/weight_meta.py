class Program_weight_tensor_meta_L_self_modules_layer_modules_3_modules_reduce_1x1_modules_convolution_parameters_weight_:
    name = "L_self_modules_layer_modules_3_modules_reduce_1x1_modules_convolution_parameters_weight_"
    shape = [16, 96, 1, 1]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.000
    std = 0.020
    data = None
    min_val = -0.06246647611260414
    max_val = 0.07784031331539154


class Program_weight_tensor_meta_L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_buffers_running_mean_:
    name = "L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_buffers_running_mean_"
    shape = [16]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_buffers_running_var_:
    name = "L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_buffers_running_var_"
    shape = [16]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_parameters_weight_:
    name = "L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_parameters_weight_"
    shape = [16]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_parameters_bias_:
    name = "L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_parameters_bias_"
    shape = [16]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_batch_norm_11:
    name = "batch_norm_11"
    shape = [1, 16, 4, 4]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None
    min_val = -2.739636044050888e-18
    max_val = 5.836971454749307e-18


class Program_weight_tensor_meta_pad_14:
    name = "pad_14"
    shape = [1, 96, 4, 4]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.013
    std = 0.019
    data = None
    min_val = 0.0
    max_val = 0.07689719647169113
