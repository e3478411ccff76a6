"""The command line: `trtlint` subcommands (commands.py), confirm's arguments, the rule docs generator."""

from __future__ import annotations

from typing import Optional


def main(argv: Optional[list[str]] = None) -> int:
    """The ``trtlint`` console script (``trtlint.cli:main``); the commands load on the first call."""
    from trtlint.cli.commands import main as run

    return run(argv)
