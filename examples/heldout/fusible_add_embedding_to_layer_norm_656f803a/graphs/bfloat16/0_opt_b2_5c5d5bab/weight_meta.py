class Program_weight_tensor_meta_L_self_modules_decoder_modules_embed_positions_parameters_weight_:
    name = "L_self_modules_decoder_modules_embed_positions_parameters_weight_"
    shape = [514, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.020
    data = None
    min_val = -0.08730334788560867
    max_val = 0.07868083566427231


class Program_weight_tensor_meta_L_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_weight_:
    name = "L_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_bias_:
    name = "L_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_embedding:
    name = "embedding"
    shape = [1, 16, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.004
    data = None
    min_val = -0.013864874839782715
    max_val = 0.01364058256149292


class Program_weight_tensor_meta_getitem:
    name = "getitem"
    shape = [1, 16]
    dtype = "torch.int64"
    device = "cpu"
    mean = None
    std = None
    data = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    min_val = 0
    max_val = 15
