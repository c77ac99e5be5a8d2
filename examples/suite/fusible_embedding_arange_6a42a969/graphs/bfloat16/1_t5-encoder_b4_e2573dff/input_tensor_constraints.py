dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([4, 128], "L_args_0_"),
    ([1000, 128], "L_self_modules_encoder_modules_embed_tokens_parameters_weight_"),
]
