class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_parameters_layer_scale_parameter_:
    name = "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_parameters_layer_scale_parameter_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_layernorm_parameters_weight_:
    name = "L_self_modules_layernorm_parameters_weight_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_layernorm_parameters_bias_:
    name = "L_self_modules_layernorm_parameters_bias_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_conv2d_6:
    name = "conv2d_6"
    shape = [2, 128, 4, 4]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.002
    std = 0.068
    data = None
    min_val = -0.22743618488311768
    max_val = 0.21531501412391663


class Program_weight_tensor_meta_linear_7:
    name = "linear_7"
    shape = [2, 4, 4, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.001
    std = 0.019
    data = None
    min_val = -0.050893187522888184
    max_val = 0.05906655266880989
