class Program_weight_tensor_meta_L_self_modules_final_layer_norm_parameters_weight_:
    name = "L_self_modules_final_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_final_layer_norm_parameters_bias_:
    name = "L_self_modules_final_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_add_5:
    name = "add_5"
    shape = [8, 77, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.002
    std = 0.047
    data = None
    min_val = -0.15158909559249878
    max_val = 0.1410652995109558


class Program_weight_tensor_meta_linear_11:
    name = "linear_11"
    shape = [8, 77, 128]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.022
    data = None
    min_val = -0.05557197704911232
    max_val = 0.06294307112693787
