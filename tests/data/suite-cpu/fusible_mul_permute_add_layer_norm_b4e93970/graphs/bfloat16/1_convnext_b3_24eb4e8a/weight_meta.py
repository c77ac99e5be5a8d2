class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_2_modules_layers_modules_0_parameters_layer_scale_parameter_:
    name = "L_self_modules_encoder_modules_stages_modules_2_modules_layers_modules_0_parameters_layer_scale_parameter_"
    shape = [64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_weight_:
    name = "L_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_weight_"
    shape = [64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_bias_:
    name = "L_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_bias_"
    shape = [64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_conv2d_4:
    name = "conv2d_4"
    shape = [2, 64, 8, 8]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.050
    data = None
    min_val = -0.16700845956802368
    max_val = 0.1782504916191101


class Program_weight_tensor_meta_linear_5:
    name = "linear_5"
    shape = [2, 8, 8, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.020
    data = None
    min_val = -0.06054301932454109
    max_val = 0.03715811297297478
