"""A pass that matches add + LayerNorm but whose replacement raises (expected: runtime_error)."""

import torch


def pattern(x, residual, weight, bias):
    added = x + residual
    out = torch.nn.functional.layer_norm(added, (128,), weight, bias, 1e-12)
    return out


def replacement_args(x, residual, weight, bias):
    return (x, residual, weight, bias)


@torch.fx.wrap
def broken_add_layer_norm(x, residual, weight, bias):
    sizes = [x.shape[0]]
    return torch.empty(sizes[3])  # IndexError: the wrapper's shape bookkeeping is wrong


def replacement_func():
    return broken_add_layer_norm
