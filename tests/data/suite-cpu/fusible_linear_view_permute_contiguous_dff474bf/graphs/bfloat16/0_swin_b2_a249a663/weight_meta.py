class Program_weight_tensor_meta_L_self_modules_encoder_modules_layers_modules_0_modules_downsample_modules_reduction_parameters_weight_:
    name = "L_self_modules_encoder_modules_layers_modules_0_modules_downsample_modules_reduction_parameters_weight_"
    shape = [64, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.020
    data = None
    min_val = -0.08252043277025223
    max_val = 0.07186459004878998


class Program_weight_tensor_meta_layer_norm_3:
    name = "layer_norm_3"
    shape = [1, 16, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 1.007
    data = None
    min_val = -3.7996394634246826
    max_val = 3.1015963554382324
