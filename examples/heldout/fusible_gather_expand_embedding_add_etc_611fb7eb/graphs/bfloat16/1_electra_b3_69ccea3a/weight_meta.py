class Program_weight_tensor_meta_L_args_0_:
    name = "L_args_0_"
    shape = [2, 64]
    dtype = "torch.int64"
    device = "cpu"
    mean = None
    std = None
    data = [453, 960, 777, 221, 236, 224, 194, 250, 147, 853, 37, 310, 542, 883, 38, 442, 512, 692, 796, 791, 926, 657, 702, 452, 656, 720, 834, 635, 603, 827, 546, 195, 336, 709, 270, 211, 241, 394, 793, 971, 684, 249, 578, 401, 822, 381, 308, 952, 274, 322, 744, 656, 332, 419, 244, 416, 163, 479, 780, 522, 413, 185, 988, 186, 218, 845, 0, 610, 439, 3, 636, 398, 613, 885, 817, 106, 189, 973, 702, 937, 897, 712, 273, 735, 180, 2, 92, 191, 411, 22, 497, 71, 219, 24, 853, 886, 272, 977, 102, 772, 761, 693, 627, 35, 885, 73, 821, 347, 313, 789, 797, 548, 424, 980, 931, 611, 740, 796, 302, 252, 384, 810, 191, 919, 490, 147, 409, 316]


class Program_weight_tensor_meta_L_self_modules_embeddings_modules_word_embeddings_parameters_weight_:
    name = "L_self_modules_embeddings_modules_word_embeddings_parameters_weight_"
    shape = [1000, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.020
    data = None
    min_val = -0.07934900373220444
    max_val = 0.08291164040565491


class Program_weight_tensor_meta_L_self_modules_embeddings_modules_token_type_embeddings_parameters_weight_:
    name = "L_self_modules_embeddings_modules_token_type_embeddings_parameters_weight_"
    shape = [2, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.001
    std = 0.020
    data = None
    min_val = -0.05736221745610237
    max_val = 0.061111364513635635


class Program_weight_tensor_meta_L_self_modules_embeddings_modules_position_embeddings_parameters_weight_:
    name = "L_self_modules_embeddings_modules_position_embeddings_parameters_weight_"
    shape = [512, 64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.000
    std = 0.020
    data = None
    min_val = -0.08462755382061005
    max_val = 0.07721973210573196


class Program_weight_tensor_meta_L_self_modules_embeddings_modules_LayerNorm_parameters_weight_:
    name = "L_self_modules_embeddings_modules_LayerNorm_parameters_weight_"
    shape = [64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_embeddings_modules_LayerNorm_parameters_bias_:
    name = "L_self_modules_embeddings_modules_LayerNorm_parameters_bias_"
    shape = [64]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_getitem:
    name = "getitem"
    shape = [1, 64]
    dtype = "torch.int64"
    device = "cpu"
    mean = None
    std = None
    data = None
    min_val = 0
    max_val = 63


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
