class Program_weight_tensor_meta_L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_sequence_reduction_modules_layer_norm_parameters_weight_:
    name = "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_sequence_reduction_modules_layer_norm_parameters_weight_"
    shape = [16]
    dtype = "torch.float16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_sequence_reduction_modules_layer_norm_parameters_bias_:
    name = "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_sequence_reduction_modules_layer_norm_parameters_bias_"
    shape = [16]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_k_proj_parameters_weight_:
    name = "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_k_proj_parameters_weight_"
    shape = [16, 16]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.001
    std = 0.019
    data = None
    min_val = -0.06235291436314583
    max_val = 0.06629730761051178


class Program_weight_tensor_meta_L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_k_proj_parameters_bias_:
    name = "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_k_proj_parameters_bias_"
    shape = [16]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_v_proj_parameters_weight_:
    name = "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_v_proj_parameters_weight_"
    shape = [16, 16]
    dtype = "torch.float16"
    device = "cpu"
    mean = -0.001
    std = 0.020
    data = None
    min_val = -0.057942911982536316
    max_val = 0.054417889565229416


class Program_weight_tensor_meta_L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_v_proj_parameters_bias_:
    name = "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_v_proj_parameters_bias_"
    shape = [16]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_transpose_3:
    name = "transpose_3"
    shape = [1, 1, 16]
    dtype = "torch.float16"
    device = "cpu"
    mean = 0.023
    std = 0.120
    data = [-0.0211319737136364, -0.08503144979476929, -0.04247516021132469, -0.14111505448818207, 0.06166906654834747, 0.25199490785598755, -0.16695846617221832, -0.05069313943386078, 0.09326184540987015, 0.1390361189842224, 0.08090808242559433, 0.2153542935848236, 0.033851586282253265, -0.07140408456325531, 0.09886704385280609, -0.026040254160761833]
    min_val = -0.16695846617221832
    max_val = 0.25199490785598755
