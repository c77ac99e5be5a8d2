dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([16], "L_self_modules_encoder_modules_stages_modules_0_modules_layers_modules_0_parameters_layer_scale_parameter_"),
    ([16], "L_self_modules_encoder_modules_stages_modules_1_modules_downsampling_layer_modules_0_parameters_weight_"),
    ([16], "L_self_modules_encoder_modules_stages_modules_1_modules_downsampling_layer_modules_0_parameters_bias_"),
    ([2, 16, 32, 32], "permute_1"),
    ([2, 32, 32, 16], "linear_1"),
]
