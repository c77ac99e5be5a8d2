dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([1, 16], "L_args_0_"),
    ([1000, 64], "L_self_modules_embeddings_modules_word_embeddings_parameters_weight_"),
    ([2, 64], "L_self_modules_embeddings_modules_token_type_embeddings_parameters_weight_"),
    ([512, 64], "L_self_modules_embeddings_modules_position_embeddings_parameters_weight_"),
    ([64], "L_self_modules_embeddings_modules_LayerNorm_parameters_weight_"),
    ([64], "L_self_modules_embeddings_modules_LayerNorm_parameters_bias_"),
    ([1, 16], "getitem"),
    ([1, 512], "expand"),
]
