dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([48, 1, 3, 3], "L_self_modules_layer_modules_2_modules_conv_3x3_modules_convolution_parameters_weight_"),
    ([48], "L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_buffers_running_mean_"),
    ([48], "L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_buffers_running_var_"),
    ([48], "L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_parameters_weight_"),
    ([48], "L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_parameters_bias_"),
    ([2, 48, 33, 33], "pad_10"),
]
