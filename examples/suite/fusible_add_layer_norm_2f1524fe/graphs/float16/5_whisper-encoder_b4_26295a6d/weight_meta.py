class Program_weight_tensor_meta_L_self_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_:
    name = "L_self_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_:
    name = "L_self_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_dropout:
    name = "dropout"
    shape = [4, 256, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.305
    std = 0.128
    data = None
    stride = [32768, 1, 256]
    min_val = -0.22406722605228424
    max_val = 0.775528073310852


class Program_weight_tensor_meta_dropout_1:
    name = "dropout_1"
    shape = [4, 256, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.002
    std = 0.019
    data = None
    min_val = -0.05188244953751564
    max_val = 0.04538484662771225
