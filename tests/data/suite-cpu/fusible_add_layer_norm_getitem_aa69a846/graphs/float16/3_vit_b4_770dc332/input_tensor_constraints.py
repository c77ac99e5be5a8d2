dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([128], "L_self_modules_layernorm_parameters_weight_"),
    ([128], "L_self_modules_layernorm_parameters_bias_"),
    ([2, 257, 128], "add_3"),
    ([2, 257, 128], "dropout_4"),
]
