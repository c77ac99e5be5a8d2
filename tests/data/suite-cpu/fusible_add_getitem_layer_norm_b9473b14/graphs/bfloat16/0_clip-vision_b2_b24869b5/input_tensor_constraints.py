dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([128], "L_self_modules_post_layernorm_parameters_weight_"),
    ([128], "L_self_modules_post_layernorm_parameters_bias_"),
    ([1, 17, 128], "add_3"),
    ([1, 17, 128], "linear_11"),
]
