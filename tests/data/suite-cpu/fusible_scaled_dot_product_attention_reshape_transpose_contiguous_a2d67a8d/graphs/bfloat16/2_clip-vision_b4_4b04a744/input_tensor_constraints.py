dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([2, 2, 257, 64], "transpose_1"),
    ([2, 2, 257, 64], "transpose_2"),
    ([2, 2, 257, 64], "transpose_3"),
]
