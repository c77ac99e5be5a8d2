dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([128], "L_self_modules_pre_layrnorm_parameters_weight_"),
    ([128], "L_self_modules_pre_layrnorm_parameters_bias_"),
    ([128], "L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm1_parameters_weight_"),
    ([128], "L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm1_parameters_bias_"),
    ([2, 257, 128], "add"),
]
