class Program_weight_tensor_meta_L_self_modules_encoder_modules_layer_modules_0_modules_attention_modules_output_modules_LayerNorm_parameters_weight_:
    name = "L_self_modules_encoder_modules_layer_modules_0_modules_attention_modules_output_modules_LayerNorm_parameters_weight_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_layer_modules_0_modules_attention_modules_output_modules_LayerNorm_parameters_bias_:
    name = "L_self_modules_encoder_modules_layer_modules_0_modules_attention_modules_output_modules_LayerNorm_parameters_bias_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_dropout:
    name = "dropout"
    shape = [8, 128, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.007
    std = 0.997
    data = None
    min_val = -4.679788589477539
    max_val = 4.554067611694336


class Program_weight_tensor_meta_dropout_1:
    name = "dropout_1"
    shape = [8, 128, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.002
    std = 0.020
    data = None
    min_val = -0.04360092803835869
    max_val = 0.06195969134569168
