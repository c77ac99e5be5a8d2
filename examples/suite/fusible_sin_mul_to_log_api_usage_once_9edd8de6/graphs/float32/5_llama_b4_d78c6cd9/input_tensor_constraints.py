dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([4, 128, 128], "embedding"),
    ([1, 128, 64], "cat"),
    ([1, 128, 64], "mul"),
]
