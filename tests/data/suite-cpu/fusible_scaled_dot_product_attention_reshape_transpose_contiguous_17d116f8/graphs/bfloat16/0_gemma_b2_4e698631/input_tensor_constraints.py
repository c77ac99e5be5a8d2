dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([1, 1, 16, 16], "expand_1"),
    ([1, 2, 16, 64], "add_5"),
    ([1, 2, 16, 64], "reshape"),
    ([1, 2, 16, 64], "reshape_1"),
]
