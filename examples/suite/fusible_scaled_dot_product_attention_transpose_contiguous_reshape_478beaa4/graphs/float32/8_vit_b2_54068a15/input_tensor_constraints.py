dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([1, 1, 17, 17], "expand_1"),
    ([1, 2, 17, 64], "transpose_1"),
    ([1, 2, 17, 64], "transpose_2"),
    ([1, 2, 17, 64], "transpose_3"),
]
