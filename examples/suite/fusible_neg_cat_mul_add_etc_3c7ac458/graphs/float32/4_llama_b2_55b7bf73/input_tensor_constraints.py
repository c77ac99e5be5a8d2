dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([1, 1, 16, 64], "transpose_3"),
    ([1, 1, 16, 64], "unsqueeze_2"),
    ([1, 1, 16, 64], "mul_6"),
    ([1, 1, 16, 32], "getitem_10"),
    ([1, 1, 16, 32], "getitem_11"),
]
