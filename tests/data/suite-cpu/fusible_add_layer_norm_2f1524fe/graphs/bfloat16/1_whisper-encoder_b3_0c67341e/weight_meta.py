class Program_weight_tensor_meta_L_self_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_:
    name = "L_self_modules_layers_modules_0_modules_final_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_:
    name = "L_self_modules_layers_modules_0_modules_final_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_dropout:
    name = "dropout"
    shape = [1, 32, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.422
    std = 0.112
    data = None
    min_val = 0.014921423979103565
    max_val = 0.8450209498405457


class Program_weight_tensor_meta_dropout_1:
    name = "dropout_1"
    shape = [1, 32, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.003
    std = 0.019
    data = None
    min_val = -0.05904160067439079
    max_val = 0.04210423678159714
