dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([64], "L_self_modules_encoder_modules_stages_modules_2_modules_layers_modules_0_parameters_layer_scale_parameter_"),
    ([64], "L_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_weight_"),
    ([64], "L_self_modules_encoder_modules_stages_modules_3_modules_downsampling_layer_modules_0_parameters_bias_"),
    ([1, 64, 2, 2], "conv2d_4"),
    ([1, 2, 2, 64], "linear_5"),
]
