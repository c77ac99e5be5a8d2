dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([16], "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_sequence_reduction_modules_layer_norm_parameters_weight_"),
    ([16], "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_sequence_reduction_modules_layer_norm_parameters_bias_"),
    ([16, 16], "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_k_proj_parameters_weight_"),
    ([16], "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_k_proj_parameters_bias_"),
    ([16, 16], "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_v_proj_parameters_weight_"),
    ([16], "L_self_modules_stages_modules_0_modules_blocks_modules_0_modules_attention_modules_v_proj_parameters_bias_"),
    ([2, 16, 16], "transpose_3"),
]
