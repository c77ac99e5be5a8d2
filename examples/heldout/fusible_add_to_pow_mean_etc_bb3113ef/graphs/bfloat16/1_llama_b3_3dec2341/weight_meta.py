class Program_weight_tensor_meta_L_args_0_modules_layers_modules_0_modules_post_attention_layernorm_parameters_weight_:
    name = "L_args_0_modules_layers_modules_0_modules_post_attention_layernorm_parameters_weight_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_embedding:
    name = "embedding"
    shape = [2, 64, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.004
    data = None
    min_val = -0.016504088416695595
    max_val = 0.016405973583459854


class Program_weight_tensor_meta_linear_3:
    name = "linear_3"
    shape = [2, 64, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.001
    data = None
    min_val = -0.004864635411649942
    max_val = 0.005542566068470478
