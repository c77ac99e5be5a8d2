dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([128], "L_self_modules_h_modules_0_modules_ln_2_parameters_weight_"),
    ([128], "L_self_modules_h_modules_0_modules_ln_2_parameters_bias_"),
    ([1, 16, 128], "dropout"),
    ([1, 16, 128], "dropout_2"),
]
