dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([8, 2, 77, 64], "transpose"),
    ([8, 2, 77, 64], "transpose_1"),
    ([8, 2, 77, 64], "transpose_2"),
]
