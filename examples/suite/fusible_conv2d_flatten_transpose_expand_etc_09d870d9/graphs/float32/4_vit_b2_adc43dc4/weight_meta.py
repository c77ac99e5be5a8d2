class Program_weight_tensor_meta_L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_weight_:
    name = "L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_weight_"
    shape = [128, 3, 8, 8]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.000
    std = 0.020
    data = None
    min_val = -0.07432181388139725
    max_val = 0.0766584724187851


class Program_weight_tensor_meta_L_args_0_:
    name = "L_args_0_"
    shape = [1, 3, 32, 32]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.028
    std = 0.993
    data = None
    min_val = -3.6619904041290283
    max_val = 3.4705088138580322


class Program_weight_tensor_meta_L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_bias_:
    name = "L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_bias_"
    shape = [128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_embeddings_parameters_cls_token_:
    name = "L_self_modules_embeddings_parameters_cls_token_"
    shape = [1, 1, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.001
    std = 0.019
    data = None
    min_val = -0.05218212306499481
    max_val = 0.048079684376716614


class Program_weight_tensor_meta_L_self_modules_embeddings_parameters_position_embeddings_:
    name = "L_self_modules_embeddings_parameters_position_embeddings_"
    shape = [1, 17, 128]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.020
    data = None
    min_val = -0.07636255770921707
    max_val = 0.06183701753616333
