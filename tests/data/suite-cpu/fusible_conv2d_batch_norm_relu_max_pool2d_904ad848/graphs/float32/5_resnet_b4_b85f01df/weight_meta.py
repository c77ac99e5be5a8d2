class Program_weight_tensor_meta_L_pixel_values_:
    name = "L_pixel_values_"
    shape = [2, 3, 128, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.000
    std = 1.000
    data = None
    min_val = -4.31582498550415
    max_val = 4.38856315612793


class Program_weight_tensor_meta_L_self_modules_embedder_modules_embedder_modules_convolution_parameters_weight_:
    name = "L_self_modules_embedder_modules_embedder_modules_convolution_parameters_weight_"
    shape = [16, 3, 7, 7]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.051
    data = None
    min_val = -0.15777571499347687
    max_val = 0.23045092821121216


class Program_weight_tensor_meta_L_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_mean_:
    name = "L_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_mean_"
    shape = [16]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_L_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_var_:
    name = "L_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_var_"
    shape = [16]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_embedder_modules_embedder_modules_normalization_parameters_weight_:
    name = "L_self_modules_embedder_modules_embedder_modules_normalization_parameters_weight_"
    shape = [16]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_embedder_modules_embedder_modules_normalization_parameters_bias_:
    name = "L_self_modules_embedder_modules_embedder_modules_normalization_parameters_bias_"
    shape = [16]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
