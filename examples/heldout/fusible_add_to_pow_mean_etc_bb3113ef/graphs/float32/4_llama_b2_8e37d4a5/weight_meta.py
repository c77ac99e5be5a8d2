class Program_weight_tensor_meta_L_args_0_modules_layers_modules_0_modules_post_attention_layernorm_parameters_weight_:
    name = "L_args_0_modules_layers_modules_0_modules_post_attention_layernorm_parameters_weight_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_embedding:
    name = "embedding"
    shape = [1, 16, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.004
    data = None
    min_val = -0.013864874839782715
    max_val = 0.01364058256149292


class Program_weight_tensor_meta_linear_3:
    name = "linear_3"
    shape = [1, 16, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.000
    std = 0.001
    data = None
    min_val = -0.004771422129124403
    max_val = 0.004809106700122356
