dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([4, 2, 16, 16], "transpose_2"),
    ([4, 2, 16, 16], "transpose_3"),
    ([4, 2, 16, 16], "transpose_4"),
    ([1, 2, 16, 16], "unsqueeze"),
]
