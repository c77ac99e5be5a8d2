dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([1, 16], "L_args_0_"),
    ([1000, 128], "L_self_modules_embeddings_modules_word_embeddings_parameters_weight_"),
    ([1, 512], "L_self_modules_embeddings_buffers_position_ids_"),
    ([512, 128], "L_self_modules_embeddings_modules_position_embeddings_parameters_weight_"),
    ([128], "L_self_modules_embeddings_modules_LayerNorm_parameters_weight_"),
    ([128], "L_self_modules_embeddings_modules_LayerNorm_parameters_bias_"),
]
