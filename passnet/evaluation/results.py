"""Moved to ``passnet.core.results`` (the shared bottom layer); kept so existing imports work."""

from passnet.core.results import *  # noqa: F403
