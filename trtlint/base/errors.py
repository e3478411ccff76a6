"""The errors every layer may raise, at the bottom of the import order (imports nothing of trtlint)."""

from __future__ import annotations


class ConfigError(Exception):
    """A broken config: the message names the file and the key."""
