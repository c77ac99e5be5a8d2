dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([4, 1, 128, 64], "transpose_3"),
    ([1, 1, 128, 64], "unsqueeze_2"),
    ([4, 1, 128, 64], "mul_6"),
    ([4, 1, 128, 32], "getitem_10"),
    ([4, 1, 128, 32], "getitem_11"),
]
