dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([48, 8, 1, 1], "L_self_modules_layer_modules_0_modules_expand_1x1_modules_convolution_parameters_weight_"),
    ([48], "L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_buffers_running_mean_"),
    ([48], "L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_buffers_running_var_"),
    ([48], "L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_parameters_weight_"),
    ([48], "L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_parameters_bias_"),
    ([2, 8, 64, 64], "pad_3"),
]
