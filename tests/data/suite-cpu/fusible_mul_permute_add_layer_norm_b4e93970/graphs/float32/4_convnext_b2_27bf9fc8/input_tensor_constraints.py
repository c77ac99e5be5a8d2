dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([32], "L_self_modules_encoder_modules_stages_modules_1_modules_layers_modules_0_parameters_layer_scale_parameter_"),
    ([32], "L_self_modules_encoder_modules_stages_modules_2_modules_downsampling_layer_modules_0_parameters_weight_"),
    ([32], "L_self_modules_encoder_modules_stages_modules_2_modules_downsampling_layer_modules_0_parameters_bias_"),
    ([1, 32, 4, 4], "conv2d_2"),
    ([1, 4, 4, 32], "linear_3"),
]
