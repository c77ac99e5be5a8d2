class Program_weight_tensor_meta_L_args_0_:
    name = "L_args_0_"
    shape = [1, 16]
    dtype = "torch.int64"
    device = "cpu"
    mean = None
    std = None
    data = [272, 553, 59, 78, 876, 415, 379, 693, 568, 367, 675, 789, 117, 431, 358, 654]


class Program_weight_tensor_meta_L_self_modules_encoder_modules_embed_tokens_parameters_weight_:
    name = "L_self_modules_encoder_modules_embed_tokens_parameters_weight_"
    shape = [1000, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 1.002
    data = None
    min_val = -4.340806484222412
    max_val = 4.8271684646606445
