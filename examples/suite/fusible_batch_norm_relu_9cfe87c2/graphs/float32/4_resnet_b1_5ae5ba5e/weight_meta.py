class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_layer_modules_1_modules_normalization_buffers_running_mean_:
    name = "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_layer_modules_1_modules_normalization_buffers_running_mean_"
    shape = [32]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_layer_modules_1_modules_normalization_buffers_running_var_:
    name = "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_layer_modules_1_modules_normalization_buffers_running_var_"
    shape = [32]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_layer_modules_1_modules_normalization_parameters_weight_:
    name = "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_layer_modules_1_modules_normalization_parameters_weight_"
    shape = [32]
    dtype = "torch.float32"
    device = "cpu"
    mean = 1.000
    std = 0.000
    data = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class Program_weight_tensor_meta_L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_layer_modules_1_modules_normalization_parameters_bias_:
    name = "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_layer_modules_1_modules_normalization_parameters_bias_"
    shape = [32]
    dtype = "torch.float32"
    device = "cpu"
    mean = 0.000
    std = 0.000
    data = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


class Program_weight_tensor_meta_conv2d_13:
    name = "conv2d_13"
    shape = [1, 32, 1, 1]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.000
    std = 0.001
    data = [-0.001832234556786716, 0.000709366169758141, 0.0002761312061920762, 0.0014158337144181132, -0.0013533200835809112, 0.0011113387299701571, -0.00021246675169095397, -0.0018567130900919437, 0.0002012332552112639, 0.0019750979263335466, -0.0013711138162761927, -0.0016899043694138527, 0.0012454588431864977, -0.0016694818623363972, -0.002378379926085472, -0.001716806786134839, -0.0003128312819171697, 0.00014988835027907044, -0.0024391673505306244, -0.0006842712755315006, -0.00040165564860217273, 0.0012501630699262023, 0.002559562446549535, 0.0009111299877986312, -0.001031351974233985, -0.001984044909477234, -2.8885609935969114e-05, -9.8779535619542e-05, -0.00028565776301547885, 0.002580248052254319, 0.000658264965750277, 0.00032604087027721107]
    min_val = -0.0024391673505306244
    max_val = 0.002580248052254319
