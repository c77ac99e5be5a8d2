dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([2, 3, 128, 128], "L_args_0_"),
    ([32, 3, 4, 4], "L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_weight_"),
    ([32], "L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_bias_"),
    ([32], "L_self_modules_embeddings_modules_norm_parameters_weight_"),
    ([32], "L_self_modules_embeddings_modules_norm_parameters_bias_"),
    ([32], "L_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_before_parameters_weight_"),
    ([32], "L_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_before_parameters_bias_"),
]
