"""``x * 0.125 + y`` (scaled residual); imports the helper module by its bare name."""

import kernels


def pattern(x, y):
    return x * 0.125 + y


def replacement_args(x, y):
    return (x, y)


def replacement_func():
    return kernels.scale_add
