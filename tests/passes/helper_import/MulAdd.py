"""``a * b + c``; the kernel lives in the folder's helper module, imported via pass_dir."""

from pass_dir.kernels import fused_mul_add


def pattern(a, b, c):
    return a * b + c


def replacement_args(a, b, c):
    return (a, b, c)


def replacement_func():
    return fused_mul_add
