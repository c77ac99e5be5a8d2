dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([128], "L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_weight_"),
    ([128], "L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_bias_"),
    ([4, 799, 128], "dropout_1"),
    ([4, 799, 128], "dropout_2"),
]
