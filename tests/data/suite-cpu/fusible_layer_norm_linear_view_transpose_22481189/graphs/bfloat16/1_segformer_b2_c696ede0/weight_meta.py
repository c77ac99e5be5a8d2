class Program_weight_tensor_meta_L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_sequence_reduction_modules_layer_norm_parameters_weight_:
    name = "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_sequence_reduction_modules_layer_norm_parameters_weight_"
    shape = [16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_sequence_reduction_modules_layer_norm_parameters_bias_:
    name = "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_sequence_reduction_modules_layer_norm_parameters_bias_"
    shape = [16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_k_proj_parameters_weight_:
    name = "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_k_proj_parameters_weight_"
    shape = [16, 16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.001
    std = 0.019
    data = None
    min_val = -0.06235291436314583
    max_val = 0.06629730761051178


class Program_weight_tensor_meta_L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_k_proj_parameters_bias_:
    name = "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_k_proj_parameters_bias_"
    shape = [16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_v_proj_parameters_weight_:
    name = "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_v_proj_parameters_weight_"
    shape = [16, 16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.001
    std = 0.020
    data = None
    min_val = -0.057942911982536316
    max_val = 0.054417889565229416


class Program_weight_tensor_meta_L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_v_proj_parameters_bias_:
    name = "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_v_proj_parameters_bias_"
    shape = [16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_transpose_3:
    name = "transpose_3"
    shape = [2, 16, 16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.005
    std = 0.127
    data = None
    min_val = -0.397289901971817
    max_val = 0.36086800694465637
