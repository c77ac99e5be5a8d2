class Program_weight_tensor_meta_L_self_modules_encoder_modules_layer_modules_0_modules_attention_modules_output_modules_LayerNorm_parameters_weight_:
    name = "L_self_modules_encoder_modules_layer_modules_0_modules_attention_modules_output_modules_LayerNorm_parameters_weight_"
    shape = [64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_layer_modules_0_modules_attention_modules_output_modules_LayerNorm_parameters_bias_:
    name = "L_self_modules_encoder_modules_layer_modules_0_modules_attention_modules_output_modules_LayerNorm_parameters_bias_"
    shape = [64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_add_3:
    name = "add_3"
    shape = [4, 128, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.002
    std = 0.026
    data = None
    min_val = -0.07954098284244537
    max_val = 0.06371396034955978


class Program_weight_tensor_meta_linear_6:
    name = "linear_6"
    shape = [4, 128, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.001
    std = 0.018
    data = None
    min_val = -0.043687671422958374
    max_val = 0.041056111454963684
