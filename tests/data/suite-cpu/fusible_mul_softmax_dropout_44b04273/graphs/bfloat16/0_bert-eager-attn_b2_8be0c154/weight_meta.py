class Program_weight_tensor_meta_matmul:
    name = "matmul"
    shape = [1, 2, 16, 16]
    dtype = "torch.bfloat16"
    device = "cpu"
    mean = -0.010
    std = 0.015
    data = None
    min_val = -0.04981781542301178
    max_val = 0.03108832612633705
