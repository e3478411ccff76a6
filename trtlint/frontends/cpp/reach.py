"""Which project headers a C++ unit pulls in, read from its ``#include`` lines (the shared-header plan of a run:
:mod:`trtlint.pipeline.cpp_headers`). A text walk on the unit's include path: no libclang, no declaration walk, so
the process that plans imports neither (the workers do, to parse)."""

from __future__ import annotations

import os

from trtlint.base import safeio
from .. import UNSAVED, ExtractContext, SourceFile
from .flags import compile_args, include_dirs_of


def reached_headers(units: list[SourceFile], ctx: ExtractContext) -> list[tuple[str, ...]]:
    """For each unit, the project headers it pulls in, directly or through other headers, by a text walk of
    the ``#include`` lines resolved on its include path (every branch of an ``#if`` counts, so this can name
    more than a parse includes). Project-relative, sorted; never raises (a unit that cannot be read gets ())."""
    from .guard import forget_listings, project_headers

    forget_listings()
    root = os.path.realpath(ctx.root)
    res = []
    for src in units:
        out: set[str] = set()
        try:
            text = src.text if src.text is not None else safeio.read_bytes(src.path, limit=safeio.SOURCE_LIMIT).decode("utf-8", "replace")
            for h in project_headers(text, str(src.path), include_dirs_of(compile_args(src, ctx)), str(ctx.root), UNSAVED):
                real = os.path.realpath(h)
                if real.startswith(root + os.sep):
                    out.add(os.path.relpath(real, root).replace(os.sep, "/"))
        except Exception:  # noqa: BLE001 - a plan input only: no headers means nothing is left to another unit
            out = set()
        out.discard(src.rel)
        res.append(tuple(sorted(out)))
    return res
