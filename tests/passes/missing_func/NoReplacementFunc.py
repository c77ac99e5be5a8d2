"""A pass that forgot ``replacement_func``."""

import torch


def pattern(x):
    return torch.relu(x)


def replacement_args(x):
    return (x,)
