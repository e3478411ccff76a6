"""C++ / CUDA frontend: libclang → :mod:`trtlint.base.facts`.

One libclang parse per file (detailed preprocessing record, function bodies kept). The traversal only
descends into declarations located in project files (under ``ctx.root``); everything from system, SDK and
prelude headers is skipped at the top level. When the real TensorRT / CUDA headers are not available the
stand-in headers of ``prelude/`` are found instead (searched last, ``-idirafter``), so plugin classes still
resolve and method bodies keep their calls.

The package: :mod:`.base` (libclang, cursor and literal-text helpers), :mod:`.flags` (compile
arguments), :mod:`.pch` (the shared precompiled header), :mod:`.unit` (one unit: parse, diagnostics, entry
points), :mod:`.decls` (the declaration walk), :mod:`.body` (the function-body walk) with :mod:`.flow`,
:mod:`.lifecycle`, :mod:`.contract`, :mod:`.device` (GPU-only bodies blanked) and :mod:`.guard` (devices and
FIFOs an ``#include`` names are never opened).

``extract`` never raises: unreadable input, libclang failures and internal errors become ``ParseProblem``s.
"""

from __future__ import annotations

from .base import PRELUDE_DIR
from .decls import CREATOR_IFACES, PLUGIN_IFACES
from .pch import pch_dir_candidates
from .unit import KIND_NAMES, extract, prepare, reached_headers, stats

VERSION = "11"

__all__ = ["CREATOR_IFACES", "KIND_NAMES", "PLUGIN_IFACES", "PRELUDE_DIR", "VERSION", "extract", "pch_dir_candidates",
           "prepare", "reached_headers", "stats"]
