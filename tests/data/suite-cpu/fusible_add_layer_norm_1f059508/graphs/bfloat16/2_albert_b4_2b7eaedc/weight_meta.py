class Program_weight_tensor_meta_L_self_modules_encoder_modules_albert_layer_groups_modules_0_modules_albert_layers_modules_0_modules_attention_modules_LayerNorm_parameters_weight_:
    name = "L_self_modules_encoder_modules_albert_layer_groups_modules_0_modules_albert_layers_modules_0_modules_attention_modules_LayerNorm_parameters_weight_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_albert_layer_groups_modules_0_modules_albert_layers_modules_0_modules_attention_modules_LayerNorm_parameters_bias_:
    name = "L_self_modules_encoder_modules_albert_layer_groups_modules_0_modules_albert_layers_modules_0_modules_attention_modules_LayerNorm_parameters_bias_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_linear:
    name = "linear"
    shape = [4, 128, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.002
    std = 0.038
    data = None
    min_val = -0.16350522637367249
    max_val = 0.15828971564769745


class Program_weight_tensor_meta_dropout_1:
    name = "dropout_1"
    shape = [4, 128, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.001
    std = 0.023
    data = None
    min_val = -0.0501905232667923
    max_val = 0.06038963049650192
