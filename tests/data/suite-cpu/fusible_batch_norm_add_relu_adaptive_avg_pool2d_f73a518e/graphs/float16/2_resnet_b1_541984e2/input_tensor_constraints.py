dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([128], "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_shortcut_modules_normalization_buffers_running_mean_"),
    ([128], "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_shortcut_modules_normalization_buffers_running_var_"),
    ([128], "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_shortcut_modules_normalization_parameters_weight_"),
    ([128], "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_modules_shortcut_modules_normalization_parameters_bias_"),
    ([1, 128, 1, 1], "batch_norm_14"),
    ([1, 128, 1, 1], "conv2d_15"),
]
