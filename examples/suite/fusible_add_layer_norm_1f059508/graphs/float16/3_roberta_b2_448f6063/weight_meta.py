class Program_weight_tensor_meta_L_self_modules_encoder_modules_layer_modules_0_modules_attention_modules_output_modules_LayerNorm_parameters_weight_:
    name = "L_self_modules_encoder_modules_layer_modules_0_modules_attention_modules_output_modules_LayerNorm_parameters_weight_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_layer_modules_0_modules_attention_modules_output_modules_LayerNorm_parameters_bias_:
    name = "L_self_modules_encoder_modules_layer_modules_0_modules_attention_modules_output_modules_LayerNorm_parameters_bias_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_dropout:
    name = "dropout"
    shape = [1, 16, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.012
    std = 0.985
    data = None
    min_val = -2.936279773712158
    max_val = 3.346338987350464


class Program_weight_tensor_meta_dropout_1:
    name = "dropout_1"
    shape = [1, 16, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.020
    data = None
    min_val = -0.04866150766611099
    max_val = 0.05837848410010338
