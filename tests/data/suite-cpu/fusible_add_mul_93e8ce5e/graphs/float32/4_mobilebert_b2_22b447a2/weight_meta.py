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
    shape = [1, 16, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.002
    std = 0.026
    data = None
    min_val = -0.07950052618980408
    max_val = 0.06362929195165634


class Program_weight_tensor_meta_linear_6:
    name = "linear_6"
    shape = [1, 16, 64]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.001
    std = 0.018
    data = None
    min_val = -0.04368655011057854
    max_val = 0.04105522856116295
