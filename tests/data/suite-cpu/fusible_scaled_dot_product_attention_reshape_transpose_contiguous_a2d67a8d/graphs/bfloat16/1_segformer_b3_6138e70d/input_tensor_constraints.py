dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([2, 1, 1024, 16], "transpose_1"),
    ([2, 1, 16, 16], "transpose_4"),
    ([2, 1, 16, 16], "transpose_5"),
]
