"""Moved to ``passnet.core.tolerance`` (the shared bottom layer); kept so existing imports work."""

from passnet.core.tolerance import *  # noqa: F403
