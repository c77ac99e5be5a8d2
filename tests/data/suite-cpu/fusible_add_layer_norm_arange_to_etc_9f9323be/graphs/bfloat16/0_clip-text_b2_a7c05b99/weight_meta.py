class Program_weight_tensor_meta_L_self_modules_final_layer_norm_parameters_weight_:
    name = "L_self_modules_final_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_final_layer_norm_parameters_bias_:
    name = "L_self_modules_final_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_view:
    name = "view"
    shape = [1, 16]
    dtype = "torch.int64"
    device = "cpu"
    mean = None
    std = None
    data = [272, 553, 59, 78, 876, 415, 379, 693, 568, 367, 675, 789, 117, 431, 358, 654]
    min_val = 59
    max_val = 876


class Program_weight_tensor_meta_add_3:
    name = "add_3"
    shape = [1, 16, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.001
    std = 0.048
    data = None
    min_val = -0.13259415328502655
    max_val = 0.14351391792297363


class Program_weight_tensor_meta_linear_11:
    name = "linear_11"
    shape = [1, 16, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.001
    std = 0.022
    data = None
    min_val = -0.05239588022232056
    max_val = 0.05591369792819023
