class Program_weight_tensor_meta_L_self_modules_decoder_modules_final_layer_norm_parameters_weight_:
    name = "L_self_modules_decoder_modules_final_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_decoder_modules_final_layer_norm_parameters_bias_:
    name = "L_self_modules_decoder_modules_final_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_reshape_5:
    name = "reshape_5"
    shape = [16, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.032
    data = None
    min_val = -0.08688999712467194
    max_val = 0.09143205732107162


class Program_weight_tensor_meta_dropout_3:
    name = "dropout_3"
    shape = [16, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.020
    data = None
    min_val = -0.04716258496046066
    max_val = 0.048962365835905075
