class Program_weight_tensor_meta_L_self_modules_decoder_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_:
    name = "L_self_modules_decoder_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_decoder_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_:
    name = "L_self_modules_decoder_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_add_1:
    name = "add_1"
    shape = [1, 16, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.006
    data = None
    min_val = -0.01809941790997982
    max_val = 0.023738045245409012


class Program_weight_tensor_meta_dropout:
    name = "dropout"
    shape = [1, 16, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.020
    data = None
    min_val = -0.04907085373997688
    max_val = 0.05856502801179886
