class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_0_modules_layers_modules_0_parameters_layer_scale_parameter_:
    name = "L_self_modules_encoder_modules_stages_modules_0_modules_layers_modules_0_parameters_layer_scale_parameter_"
    shape = [16]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07]


class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_1_modules_downsampling_layer_modules_0_parameters_weight_:
    name = "L_self_modules_encoder_modules_stages_modules_1_modules_downsampling_layer_modules_0_parameters_weight_"
    shape = [16]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_1_modules_downsampling_layer_modules_0_parameters_bias_:
    name = "L_self_modules_encoder_modules_stages_modules_1_modules_downsampling_layer_modules_0_parameters_bias_"
    shape = [16]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_permute_1:
    name = "permute_1"
    shape = [2, 16, 32, 32]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.980
    data = None
    stride = [16384, 1, 512, 16]
    min_val = -3.213499069213867
    max_val = 3.136125087738037


class Program_weight_tensor_meta_linear_1:
    name = "linear_1"
    shape = [2, 32, 32, 16]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.000
    std = 0.000
    data = None
    min_val = -0.0013592691393569112
    max_val = 0.0015345142455771565
