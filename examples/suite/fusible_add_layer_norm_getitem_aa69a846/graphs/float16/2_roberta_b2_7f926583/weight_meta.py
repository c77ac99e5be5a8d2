class Program_weight_tensor_meta_L_self_modules_encoder_modules_layer_modules_1_modules_output_modules_LayerNorm_parameters_weight_:
    name = "L_self_modules_encoder_modules_layer_modules_1_modules_output_modules_LayerNorm_parameters_weight_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_layer_modules_1_modules_output_modules_LayerNorm_parameters_bias_:
    name = "L_self_modules_encoder_modules_layer_modules_1_modules_output_modules_LayerNorm_parameters_bias_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_layer_norm_3:
    name = "layer_norm_3"
    shape = [1, 16, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 1.020
    data = None
    min_val = -4.006242752075195
    max_val = 3.891815185546875


class Program_weight_tensor_meta_dropout_4:
    name = "dropout_4"
    shape = [1, 16, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.020
    data = None
    min_val = -0.04582304134964943
    max_val = 0.04879814013838768
