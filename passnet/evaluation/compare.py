"""Moved to ``passnet.scores.compare``; kept so existing imports work."""

from passnet.scores.compare import *  # noqa: F403
