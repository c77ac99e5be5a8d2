class Program_weight_tensor_meta_L_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_:
    name = "L_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_:
    name = "L_self_modules_encoder_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_layer_norm_2:
    name = "layer_norm_2"
    shape = [4, 799, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.002
    std = 0.997
    data = None
    min_val = -4.528594970703125
    max_val = 4.554903030395508


class Program_weight_tensor_meta_dropout_4:
    name = "dropout_4"
    shape = [4, 799, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.003
    std = 0.019
    data = None
    min_val = -0.05669226497411728
    max_val = 0.05806908756494522
