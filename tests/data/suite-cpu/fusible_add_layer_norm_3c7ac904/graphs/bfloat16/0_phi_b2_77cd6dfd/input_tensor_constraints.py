dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([128], "L_self_modules_layers_modules_1_modules_input_layernorm_parameters_weight_"),
    ([128], "L_self_modules_layers_modules_1_modules_input_layernorm_parameters_bias_"),
    ([1, 16, 128], "dropout"),
    ([1, 16, 128], "dropout_1"),
    ([1, 16, 128], "dropout_2"),
]
