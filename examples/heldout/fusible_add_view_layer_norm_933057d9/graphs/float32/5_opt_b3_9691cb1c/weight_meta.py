class Program_weight_tensor_meta_L_self_modules_decoder_modules_final_layer_norm_parameters_weight_:
    name = "L_self_modules_decoder_modules_final_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_decoder_modules_final_layer_norm_parameters_bias_:
    name = "L_self_modules_decoder_modules_final_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_reshape_5:
    name = "reshape_5"
    shape = [128, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.000
    std = 0.032
    data = None
    min_val = -0.09489162266254425
    max_val = 0.10278667509555817


class Program_weight_tensor_meta_dropout_3:
    name = "dropout_3"
    shape = [128, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.001
    std = 0.020
    data = None
    min_val = -0.047302890568971634
    max_val = 0.0492776595056057
