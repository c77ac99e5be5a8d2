dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([1, 1, 16, 32], "unsqueeze_2"),
    ([1, 1, 16, 32], "mul_4"),
    ([1, 1, 16, 16], "getitem_14"),
    ([1, 1, 16, 16], "getitem_15"),
]
