class Program_weight_tensor_meta_L_self_modules_layer_modules_3_modules_reduce_1x1_modules_convolution_parameters_weight_:
    name = "L_self_modules_layer_modules_3_modules_reduce_1x1_modules_convolution_parameters_weight_"
    shape = [16, 96, 1, 1]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.020
    data = None
    min_val = -0.06246647611260414
    max_val = 0.07784031331539154


class Program_weight_tensor_meta_L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_buffers_running_mean_:
    name = "L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_buffers_running_mean_"
    shape = [16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_buffers_running_var_:
    name = "L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_buffers_running_var_"
    shape = [16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_parameters_weight_:
    name = "L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_parameters_weight_"
    shape = [16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_parameters_bias_:
    name = "L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_parameters_bias_"
    shape = [16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_batch_norm_11:
    name = "batch_norm_11"
    shape = [2, 16, 16, 16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None
    min_val = -3.443929670827272e-18
    max_val = 1.4963105019765683e-17


class Program_weight_tensor_meta_pad_14:
    name = "pad_14"
    shape = [2, 96, 16, 16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.013
    std = 0.018
    data = None
    min_val = 0.0
    max_val = 0.08284439146518707
