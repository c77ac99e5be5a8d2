dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([128], "L_self_modules_encoder_modules_stages_modules_3_modules_layers_modules_0_parameters_layer_scale_parameter_"),
    ([128], "L_self_modules_layernorm_parameters_weight_"),
    ([128], "L_self_modules_layernorm_parameters_bias_"),
    ([2, 128, 4, 4], "conv2d_6"),
    ([2, 4, 4, 128], "linear_7"),
]
