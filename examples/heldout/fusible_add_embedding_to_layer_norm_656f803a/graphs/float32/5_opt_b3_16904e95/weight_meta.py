class Program_weight_tensor_meta_L_self_modules_decoder_modules_embed_positions_parameters_weight_:
    name = "L_self_modules_decoder_modules_embed_positions_parameters_weight_"
    shape = [514, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.020
    data = None
    min_val = -0.08730334788560867
    max_val = 0.07868083566427231


class Program_weight_tensor_meta_L_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_weight_:
    name = "L_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_weight_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_bias_:
    name = "L_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_bias_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_embedding:
    name = "embedding"
    shape = [2, 64, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.004
    data = None
    min_val = -0.016504088416695595
    max_val = 0.016405973583459854


class Program_weight_tensor_meta_getitem:
    name = "getitem"
    shape = [2, 64]
    dtype = "torch.int64"
    device = "cpu"
    mean = None
    std = None
    data = None
    min_val = 0
    max_val = 63
