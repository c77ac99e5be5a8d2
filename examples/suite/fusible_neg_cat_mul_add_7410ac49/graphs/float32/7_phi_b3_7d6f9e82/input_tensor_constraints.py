dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([1, 1, 128, 32], "unsqueeze_2"),
    ([4, 2, 128, 32], "mul_2"),
    ([4, 2, 128, 16], "getitem_12"),
    ([4, 2, 128, 16], "getitem_13"),
]
