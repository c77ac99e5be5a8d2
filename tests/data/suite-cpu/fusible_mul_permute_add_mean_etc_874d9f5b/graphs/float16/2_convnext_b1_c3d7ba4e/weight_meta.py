class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_parameters_layer_scale_parameter_:
    name = "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_parameters_layer_scale_parameter_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_layernorm_parameters_weight_:
    name = "L_self_modules_layernorm_parameters_weight_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_layernorm_parameters_bias_:
    name = "L_self_modules_layernorm_parameters_bias_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_conv2d_6:
    name = "conv2d_6"
    shape = [1, 128, 1, 1]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.004
    std = 0.069
    data = None
    min_val = -0.13329662382602692
    max_val = 0.18664905428886414


class Program_weight_tensor_meta_linear_7:
    name = "linear_7"
    shape = [1, 1, 1, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.020
    data = None
    min_val = -0.05244551971554756
    max_val = 0.066226527094841
