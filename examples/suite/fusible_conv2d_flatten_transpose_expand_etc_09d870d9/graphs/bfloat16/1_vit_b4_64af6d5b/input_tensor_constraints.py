dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([128, 3, 8, 8], "L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_weight_"),
    ([2, 3, 128, 128], "L_args_0_"),
    ([128], "L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_bias_"),
    ([1, 1, 128], "L_self_modules_embeddings_parameters_cls_token_"),
    ([1, 257, 128], "L_self_modules_embeddings_parameters_position_embeddings_"),
]
