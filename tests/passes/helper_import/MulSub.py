"""``a * b - c``; imports the same helper module by its bare name."""

import kernels


def pattern(a, b, c):
    return a * b - c


def replacement_args(a, b, c):
    return (a, b, c)


def replacement_func():
    return kernels.fused_mul_sub
