class Program_weight_tensor_meta_L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_weight_:
    name = "L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_bias_:
    name = "L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_dropout_1:
    name = "dropout_1"
    shape = [4, 799, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.001
    std = 1.008
    data = None
    min_val = -4.528285980224609
    max_val = 4.703276634216309


class Program_weight_tensor_meta_dropout_2:
    name = "dropout_2"
    shape = [4, 799, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.019
    data = None
    min_val = -0.04747210443019867
    max_val = 0.0476263165473938
