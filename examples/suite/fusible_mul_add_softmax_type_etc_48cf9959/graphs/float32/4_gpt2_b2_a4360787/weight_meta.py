class Program_weight_tensor_meta_where:
    name = "where"
    shape = [1, 1, 16, 16]
    dtype = "torch.float32"
    device = "cpu"
    mean = -159507349986810403036736336008367308800.000
    std = 170141173319264222121726845477869060096.000
    data = None
    min_val = -3.4028234663852886e+38
    max_val = 0.0


class Program_weight_tensor_meta_matmul:
    name = "matmul"
    shape = [1, 2, 16, 16]
    dtype = "torch.float32"
    device = "cpu"
    mean = -0.001
    std = 0.015
    data = None
    min_val = -0.0474608913064003
    max_val = 0.04782450571656227
