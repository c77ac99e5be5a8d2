"""Linear layer, dropout (eval), residual add and LayerNorm as one Triton matmul (kernels.py).

The post-norm block end of BERT, RoBERTa, ELECTRA and DistilBERT's relatives
(``BertSelfOutput``, ``BertOutput``): ``LayerNorm(dropout(dense(h)) + input)``, the sum read by
nothing else. Generic: the dropout's ``p`` (the identity when ``training=False``, which stays
exact), the LayerNorm's ``normalized_shape`` and ``eps`` are free literals.

Before (FX, as Dynamo captures transformers' BERT):
    hidden_states = torch._C._nn.linear(attn_output, weight, bias)
    hidden_states_1 = torch.nn.functional.dropout(hidden_states, 0.1, False, False)
    add_2 = hidden_states_1 + input_tensor
    hidden_states_2 = torch.nn.functional.layer_norm(add_2, (768,), ln_weight, ln_bias, 1e-12)
After:
    hidden_states_2 = fused_linear_add_layer_norm(attn_output, weight, bias, input_tensor, ...)
"""

import torch
from pass_dir.kernels import linear_add_ln

FREE_LITERALS = {"p": "dropout.p", "normalized_shape": "layer_norm.normalized_shape", "eps": "layer_norm.eps"}


def pattern(x, weight, bias, residual, ln_weight, ln_bias):
    y = torch.nn.functional.linear(x, weight, bias)
    y = torch.nn.functional.dropout(y, 0.1, False, False)
    return torch.nn.functional.layer_norm(y + residual, (768,), ln_weight, ln_bias, 1e-12)


def replacement_args(x, weight, bias, residual, ln_weight, ln_bias, *, p=0.1, normalized_shape=(768,), eps=1e-12):
    return (x, weight, bias, residual, ln_weight, ln_bias, normalized_shape, eps)


@torch.fx.wrap
def fused_linear_add_layer_norm(x, weight, bias, residual, ln_weight, ln_bias, normalized_shape, eps):
    return linear_add_ln(x, weight, bias, residual, ln_weight, ln_bias, normalized_shape, eps)


def replacement_func():
    return fused_linear_add_layer_norm
