dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([4, 1, 799, 799], "expand"),
    ([4, 2, 799, 64], "transpose_3"),
    ([4, 2, 799, 64], "transpose_4"),
    ([4, 2, 799, 64], "transpose_5"),
]
