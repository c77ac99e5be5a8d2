class Program_weight_tensor_meta_L_self_modules_decoder_modules_layers_modules_1_modules_self_attn_layer_norm_parameters_weight_:
    name = "L_self_modules_decoder_modules_layers_modules_1_modules_self_attn_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_decoder_modules_layers_modules_1_modules_self_attn_layer_norm_parameters_bias_:
    name = "L_self_modules_decoder_modules_layers_modules_1_modules_self_attn_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_reshape_2:
    name = "reshape_2"
    shape = [16, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.021
    data = None
    min_val = -0.054560404270887375
    max_val = 0.06869587302207947


class Program_weight_tensor_meta_dropout_1:
    name = "dropout_1"
    shape = [16, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.001
    std = 0.020
    data = None
    min_val = -0.05434180423617363
    max_val = 0.04095467925071716
