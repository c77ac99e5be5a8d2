class Program_weight_tensor_meta_L_self_modules_final_layer_norm_parameters_weight_:
    name = "L_self_modules_final_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_final_layer_norm_parameters_bias_:
    name = "L_self_modules_final_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_view:
    name = "view"
    shape = [8, 77]
    dtype = "torch.int64"
    device = "cpu"
    mean = None
    std = None
    data = None
    min_val = 6
    max_val = 999


class Program_weight_tensor_meta_add_3:
    name = "add_3"
    shape = [8, 77, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.002
    std = 0.047
    data = None
    min_val = -0.15158911049365997
    max_val = 0.1410652995109558


class Program_weight_tensor_meta_linear_11:
    name = "linear_11"
    shape = [8, 77, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.001
    std = 0.022
    data = None
    min_val = -0.05557197332382202
    max_val = 0.06294306367635727
