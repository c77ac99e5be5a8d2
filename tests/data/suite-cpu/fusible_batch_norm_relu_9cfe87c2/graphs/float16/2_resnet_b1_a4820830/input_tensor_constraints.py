dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([32], "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_layer_modules_1_modules_normalization_buffers_running_mean_"),
    ([32], "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_layer_modules_1_modules_normalization_buffers_running_var_"),
    ([32], "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_layer_modules_1_modules_normalization_parameters_weight_"),
    ([32], "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_layer_modules_1_modules_normalization_parameters_bias_"),
    ([1, 32, 1, 1], "conv2d_13"),
]
