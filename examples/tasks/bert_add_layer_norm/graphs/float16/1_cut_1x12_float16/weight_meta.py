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
    shape = [1, 12, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.006
    std = 0.999
    data = None
    min_val = -2.740323781967163
    max_val = 3.8289008140563965


class Program_weight_tensor_meta_dropout_1:
    name = "dropout_1"
    shape = [1, 12, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.002
    std = 0.020
    data = None
    min_val = -0.04334639385342598
    max_val = 0.06156234070658684
