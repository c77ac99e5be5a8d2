class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_shortcut_modules_normalization_buffers_running_mean_:
    name = "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_shortcut_modules_normalization_buffers_running_mean_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_shortcut_modules_normalization_buffers_running_var_:
    name = "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_shortcut_modules_normalization_buffers_running_var_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_shortcut_modules_normalization_parameters_weight_:
    name = "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_shortcut_modules_normalization_parameters_weight_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_shortcut_modules_normalization_parameters_bias_:
    name = "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_shortcut_modules_normalization_parameters_bias_"
    shape = [128]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = None


class Program_weight_tensor_meta_batch_norm_14:
    name = "batch_norm_14"
    shape = [2, 128, 4, 4]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.003
    std = 0.025
    data = None
    min_val = -0.06246883049607277
    max_val = 0.08700289577245712


class Program_weight_tensor_meta_conv2d_15:
    name = "conv2d_15"
    shape = [2, 128, 4, 4]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.001
    std = 0.006
    data = None
    min_val = -0.011122778989374638
    max_val = 0.014617343433201313
