class Program_weight_tensor_meta_L_args_0_:
    name = "L_args_0_"
    shape = [1, 16]
    dtype = "torch.int64"
    device = "cpu"
    mean = None
    std = None
    data = [272, 553, 59, 78, 876, 415, 379, 693, 568, 367, 675, 789, 117, 431, 358, 654]


class Program_weight_tensor_meta_L_self_modules_embeddings_modules_word_embeddings_parameters_weight_:
    name = "L_self_modules_embeddings_modules_word_embeddings_parameters_weight_"
    shape = [1000, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.020
    data = None
    min_val = -0.07934900373220444
    max_val = 0.08291164040565491


class Program_weight_tensor_meta_L_self_modules_embeddings_modules_token_type_embeddings_parameters_weight_:
    name = "L_self_modules_embeddings_modules_token_type_embeddings_parameters_weight_"
    shape = [2, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.020
    data = None
    min_val = -0.05736221745610237
    max_val = 0.061111364513635635


class Program_weight_tensor_meta_L_self_modules_embeddings_modules_position_embeddings_parameters_weight_:
    name = "L_self_modules_embeddings_modules_position_embeddings_parameters_weight_"
    shape = [512, 64]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.000
    std = 0.020
    data = None
    min_val = -0.08462755382061005
    max_val = 0.07721973210573196


class Program_weight_tensor_meta_L_self_modules_embeddings_modules_LayerNorm_parameters_weight_:
    name = "L_self_modules_embeddings_modules_LayerNorm_parameters_weight_"
    shape = [64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_embeddings_modules_LayerNorm_parameters_bias_:
    name = "L_self_modules_embeddings_modules_LayerNorm_parameters_bias_"
    shape = [64]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


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


class Program_weight_tensor_meta_expand:
    name = "expand"
    shape = [1, 512]
    dtype = "torch.int64"
    device = "cpu"
    mean = None
    std = None
    data = None
    min_val = 0
    max_val = 0
