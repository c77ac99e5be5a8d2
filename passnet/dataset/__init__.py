"""Tasks and suites: the dataset pipeline's output, as the evaluator reads it."""

DEFAULT_SUITE = "examples/suite"
"""The suite ``passnet bench`` runs when none is given (relative to the working directory,
else to the repository root): 30 fusible tasks built by the dataset pipeline. Here, not in
``suite``, so that the CLI names it without importing torch."""
