dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([16], "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_weight_"),
    ([16], "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_layernorm_after_parameters_bias_"),
    ([1, 64, 16], "layer_norm"),
    ([1, 64, 16], "dropout"),
]
