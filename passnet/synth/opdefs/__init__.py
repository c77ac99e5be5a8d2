"""The registrations of every op the synthesizer supports (:mod:`passnet.synth.registry`).

Importing this package registers them: pointwise arithmetic and activations, casts, copies,
fills, concatenation and lookups, views, splits (chunk), repeats, normalisations and softmax,
mean/sum reductions, linear, matmul as a row reduction, the window ops (max pooling, bilinear
resizing), comparisons and boolean logic.
"""

from passnet.synth.opdefs import (  # noqa: F401 - imported for their registrations
    data,
    linear,
    logic,
    matmul,
    norms,
    pointwise,
    reductions,
    repeats,
    splits,
    views,
    windows,
)
