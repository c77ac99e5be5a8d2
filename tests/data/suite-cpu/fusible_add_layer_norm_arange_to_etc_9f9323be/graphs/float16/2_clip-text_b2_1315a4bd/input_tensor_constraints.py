dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([128], "L_self_modules_final_layer_norm_parameters_weight_"),
    ([128], "L_self_modules_final_layer_norm_parameters_bias_"),
    ([1, 16], "view"),
    ([1, 16, 128], "add_3"),
    ([1, 16, 128], "linear_11"),
]
