dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([16, 96, 1, 1], "L_self_modules_layer_modules_3_modules_reduce_1x1_modules_convolution_parameters_weight_"),
    ([16], "L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_buffers_running_mean_"),
    ([16], "L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_buffers_running_var_"),
    ([16], "L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_parameters_weight_"),
    ([16], "L_self_modules_layer_modules_3_modules_reduce_1x1_modules_normalization_parameters_bias_"),
    ([2, 16, 16, 16], "batch_norm_11"),
    ([2, 96, 16, 16], "pad_14"),
]
