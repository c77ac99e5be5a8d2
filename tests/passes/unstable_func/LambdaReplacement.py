"""``replacement_func`` returns a lambda: a fresh, unnamed object the harness cannot trust."""

import torch


def pattern(x):
    return torch.relu(x)


def replacement_args(x):
    return (x,)


def replacement_func():
    return lambda x: x
