"""C++ / CUDA frontend: libclang → :mod:`trtlint.base.facts`.

One libclang parse per file (detailed preprocessing record, function bodies kept). The traversal only
descends into declarations located in project files (under ``ctx.root``); everything from system, SDK and
prelude headers is skipped at the top level. When the real TensorRT / CUDA headers are not available the
stand-in headers of ``prelude/`` are found instead (searched last, ``-idirafter``), so plugin classes still
resolve and method bodies keep their calls.

The package: :mod:`.base` (libclang, cursor and literal-text helpers), :mod:`.flags` (compile
arguments), :mod:`.pch` (the shared precompiled header), :mod:`.unit` (one unit: parse, diagnostics, entry
points), :mod:`.decls` (the declaration walk), :mod:`.body` (the function-body walk) with :mod:`.flow`,
:mod:`.lifecycle` (with :mod:`.formats`), :mod:`.contract`, :mod:`.device` (GPU-only bodies blanked) and :mod:`.guard` (devices and
FIFOs an ``#include`` names are never opened).

``extract`` never raises: unreadable input, libclang failures and internal errors become ``ParseProblem``s.
"""

from __future__ import annotations

import importlib
from typing import Any

VERSION = "46"

# the package's names, imported from their modules on first use (PEP 562): a process that only plans a run
# (``reach.reached_headers``: ``#include`` lines) imports neither libclang's bindings nor the declaration walk
_FROM = {
    "PRELUDE_DIR": "base", "CREATOR_IFACES": "decls", "PLUGIN_IFACES": "decls", "pch_dir_candidates": "pch",
    "KIND_NAMES": "unit", "extract": "unit", "prepare": "unit", "stats": "unit", "warm": "unit",
    "reached_headers": "reach",
}

__all__ = ["CREATOR_IFACES", "KIND_NAMES", "PLUGIN_IFACES", "PRELUDE_DIR", "VERSION", "extract", "pch_dir_candidates",
           "prepare", "reached_headers", "stats", "warm"]


def __getattr__(name: str) -> Any:
    mod = _FROM.get(name)
    if mod is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{mod}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_FROM))
