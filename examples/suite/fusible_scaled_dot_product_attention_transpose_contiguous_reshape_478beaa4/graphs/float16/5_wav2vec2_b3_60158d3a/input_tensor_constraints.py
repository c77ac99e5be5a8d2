dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([1, 1, 79, 79], "expand"),
    ([1, 2, 79, 64], "transpose_3"),
    ([1, 2, 79, 64], "transpose_4"),
    ([1, 2, 79, 64], "transpose_5"),
]
