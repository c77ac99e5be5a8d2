dynamic_dim_constraint_symbols = []

dynamic_dim_constraint_symbol2example_value = {}

dynamic_dim_constraint_relations = []

dynamic_dim_constraint_input_shapes = [
    ([1, 16, 128], "embedding"),
    ([1, 16, 64], "cat"),
    ([1, 16, 64], "mul"),
]
