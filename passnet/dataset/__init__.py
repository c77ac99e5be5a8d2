"""Tasks and suites: the dataset pipeline's output, as the evaluator reads it."""

DEFAULT_SUITE = "examples/suite"
"""The suite ``passnet bench`` runs when none is given: this folder of the working directory
where there is one, else the bundled suite (``passnet.core.bundled``: a checkout's
``examples/suite`` or the wheel's copy): 30 fusible tasks built by the dataset pipeline.
Here, not in ``suite``, so that the CLI names it without importing torch."""
