dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([514, 128], "L_self_modules_decoder_modules_embed_positions_parameters_weight_"),
    ([128], "L_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_weight_"),
    ([128], "L_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_bias_"),
    ([1, 16, 128], "embedding"),
    ([1, 16], "getitem"),
]
