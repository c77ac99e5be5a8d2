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
    data = [-0.001832234556786716, 0.0007093664025887847, 0.00027613132260739803, 0.0014158337144181132, -0.0013533199671655893, 0.001111338846385479, -0.00021246675169095397, -0.001856712973676622, 0.00020123308058828115, 0.0019750981591641903, -0.0013711140491068363, -0.001689904136583209, 0.0012454589596018195, -0.0016694820951670408, -0.002378379460424185, -0.001716806786134839, -0.00031283136922866106, 0.00014988845214247704, -0.0024391678161919117, -0.0006842712755315006, -0.00040165591053664684, 0.0012501629535108805, 0.002559562213718891, 0.0009111302206292748, -0.001031351974233985, -0.0019840444438159466, -2.8885959181934595e-05, -9.877944830805063e-05, -0.0002856578794308007, 0.002580248285084963, 0.0006582647329196334, 0.0003260409866925329]
    min_val = -0.0024391678161919117
    max_val = 0.002580248285084963
