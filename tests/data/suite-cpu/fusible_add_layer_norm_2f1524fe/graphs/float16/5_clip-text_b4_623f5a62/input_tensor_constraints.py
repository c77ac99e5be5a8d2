dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([128], "L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm2_parameters_weight_"),
    ([128], "L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm2_parameters_bias_"),
    ([8, 77, 128], "add"),
    ([8, 77, 128], "linear_3"),
]
