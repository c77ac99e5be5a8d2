class Program_weight_tensor_meta_L_self_modules_post_layernorm_parameters_weight_:
    name = "L_self_modules_post_layernorm_parameters_weight_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_post_layernorm_parameters_bias_:
    name = "L_self_modules_post_layernorm_parameters_bias_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_add_3:
    name = "add_3"
    shape = [1, 17, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.011
    std = 0.975
    data = None
    min_val = -3.9969356060028076
    max_val = 3.468851327896118


class Program_weight_tensor_meta_linear_11:
    name = "linear_11"
    shape = [1, 17, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.001
    std = 0.020
    data = None
    min_val = -0.07298414409160614
    max_val = 0.05753563717007637
