dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([4, 2, 256, 64], "contiguous"),
    ([4, 2, 256, 64], "contiguous_1"),
    ([4, 2, 256, 64], "contiguous_2"),
]
