class Program_weight_tensor_meta_L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_weight_:
    name = "L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_weight_"
    shape = [128, 3, 8, 8]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.020
    data = None
    min_val = -0.07910892367362976
    max_val = 0.07905322313308716


class Program_weight_tensor_meta_L_args_0_:
    name = "L_args_0_"
    shape = [2, 3, 128, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 1.000
    data = None
    min_val = -4.31582498550415
    max_val = 4.38856315612793


class Program_weight_tensor_meta_L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_bias_:
    name = "L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_bias_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_embeddings_parameters_cls_token_:
    name = "L_self_modules_embeddings_parameters_cls_token_"
    shape = [1, 1, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.001
    std = 0.020
    data = None
    min_val = -0.043476276099681854
    max_val = 0.052003927528858185


class Program_weight_tensor_meta_L_self_modules_embeddings_parameters_position_embeddings_:
    name = "L_self_modules_embeddings_parameters_position_embeddings_"
    shape = [1, 257, 128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.020
    data = None
    min_val = -0.09297705441713333
    max_val = 0.0807209312915802
