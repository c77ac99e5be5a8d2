dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([1, 1, 128, 64], "unsqueeze_2"),
    ([4, 2, 128, 64], "mul_4"),
    ([4, 2, 128, 32], "getitem_8"),
    ([4, 2, 128, 32], "getitem_9"),
]
