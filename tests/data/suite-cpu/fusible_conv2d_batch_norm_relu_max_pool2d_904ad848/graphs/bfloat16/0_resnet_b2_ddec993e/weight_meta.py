class Program_weight_tensor_meta_L_pixel_values_:
    name = "L_pixel_values_"
    shape = [1, 3, 32, 32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.028
    std = 0.993
    data = None
    min_val = -3.6619904041290283
    max_val = 3.4705088138580322


class Program_weight_tensor_meta_L_self_modules_embedder_modules_embedder_modules_convolution_parameters_weight_:
    name = "L_self_modules_embedder_modules_embedder_modules_convolution_parameters_weight_"
    shape = [16, 3, 7, 7]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.051
    data = None
    min_val = -0.15777571499347687
    max_val = 0.23045092821121216


class Program_weight_tensor_meta_L_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_mean_:
    name = "L_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_mean_"
    shape = [16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_L_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_var_:
    name = "L_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_var_"
    shape = [16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_embedder_modules_embedder_modules_normalization_parameters_weight_:
    name = "L_self_modules_embedder_modules_embedder_modules_normalization_parameters_weight_"
    shape = [16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_embedder_modules_embedder_modules_normalization_parameters_bias_:
    name = "L_self_modules_embedder_modules_embedder_modules_normalization_parameters_bias_"
    shape = [16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
