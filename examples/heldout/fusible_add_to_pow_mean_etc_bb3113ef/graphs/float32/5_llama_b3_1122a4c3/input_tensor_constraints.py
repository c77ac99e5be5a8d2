dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([128], "L_args_0_modules_layers_modules_0_modules_post_attention_layernorm_parameters_weight_"),
    ([2, 64, 128], "embedding"),
    ([2, 64, 128], "linear_3"),
]
