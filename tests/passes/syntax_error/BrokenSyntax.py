"""A pass that does not compile: `await` outside an async function, line 11.

(A SyntaxError that ruff can still parse, so the repository stays lint-clean; the unclosed
parenthesis case is written to a temporary folder by tests/test_passes.py.)
"""

import torch


def pattern(x):
    return await torch.relu(x)
