class Program_weight_tensor_meta_L_self_modules_encoder_modules_albert_layer_groups_modules_0_modules_albert_layers_modules_0_modules_attention_modules_LayerNorm_parameters_weight_:
    name = "L_self_modules_encoder_modules_albert_layer_groups_modules_0_modules_albert_layers_modules_0_modules_attention_modules_LayerNorm_parameters_weight_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_albert_layer_groups_modules_0_modules_albert_layers_modules_0_modules_attention_modules_LayerNorm_parameters_bias_:
    name = "L_self_modules_encoder_modules_albert_layer_groups_modules_0_modules_albert_layers_modules_0_modules_attention_modules_LayerNorm_parameters_bias_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_linear:
    name = "linear"
    shape = [1, 16, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.002
    std = 0.039
    data = None
    min_val = -0.11454060673713684
    max_val = 0.1285962462425232


class Program_weight_tensor_meta_dropout_1:
    name = "dropout_1"
    shape = [1, 16, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.001
    std = 0.023
    data = None
    min_val = -0.050202056765556335
    max_val = 0.060380421578884125
