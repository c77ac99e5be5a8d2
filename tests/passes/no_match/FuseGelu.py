"""A well-formed pass whose pattern (GELU) occurs in no CNN fixture."""

import torch


def pattern(x):
    return torch.nn.functional.gelu(x)


def replacement_args(x):
    return (x,)


@torch.fx.wrap
def gelu_kernel(x):
    return torch.empty_like(x)


def replacement_func():
    return gelu_kernel
