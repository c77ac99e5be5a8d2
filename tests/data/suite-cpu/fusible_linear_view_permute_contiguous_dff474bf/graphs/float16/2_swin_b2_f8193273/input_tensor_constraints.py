dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([64, 128], "L_self_modules_encoder_modules_layers_modules_0_modules_downsample_modules_reduction_parameters_weight_"),
    ([1, 16, 128], "layer_norm_3"),
]
