class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_1_modules_layers_modules_0_parameters_layer_scale_parameter_:
    name = "L_self_modules_encoder_modules_stages_modules_1_modules_layers_modules_0_parameters_layer_scale_parameter_"
    shape = [32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07, 9.999999974752427e-07]


class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_2_modules_downsampling_layer_modules_0_parameters_weight_:
    name = "L_self_modules_encoder_modules_stages_modules_2_modules_downsampling_layer_modules_0_parameters_weight_"
    shape = [32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_2_modules_downsampling_layer_modules_0_parameters_bias_:
    name = "L_self_modules_encoder_modules_stages_modules_2_modules_downsampling_layer_modules_0_parameters_bias_"
    shape = [32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_conv2d_2:
    name = "conv2d_2"
    shape = [1, 32, 4, 4]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.001
    std = 0.033
    data = None
    min_val = -0.09172910451889038
    max_val = 0.09179256856441498


class Program_weight_tensor_meta_linear_3:
    name = "linear_3"
    shape = [1, 4, 4, 32]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.000
    data = None
    min_val = -0.0013492448488250375
    max_val = 0.0012011246290057898
