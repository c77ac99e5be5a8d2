dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([2, 3, 128, 128], "L_pixel_values_"),
    ([16, 3, 7, 7], "L_self_modules_embedder_modules_embedder_modules_convolution_parameters_weight_"),
    ([16], "L_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_mean_"),
    ([16], "L_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_var_"),
    ([16], "L_self_modules_embedder_modules_embedder_modules_normalization_parameters_weight_"),
    ([16], "L_self_modules_embedder_modules_embedder_modules_normalization_parameters_bias_"),
]
