class Program_weight_tensor_meta_linear_4:
    name = "linear_4"
    shape = [1, 17, 256]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = 0.002
    std = 0.142
    data = None
    min_val = -0.5383055210113525
    max_val = 0.6119696497917175
