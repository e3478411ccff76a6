"""Include directories guessed for one unit. A project often includes its own headers by a path rooted at a
directory of the tree (``#include "engine/plugins/foo/foo.h"`` from ``src/engine/plugins/foo/foo.cpp``, the
build adding ``src/`` somewhere trtlint does not read: a Makefile variable, a script, a CMake function), or by a
bare name that lives in a directory above the unit (``#include "trt_roi_align.hpp"`` from
``ops/tensorrt/plugins/trt_roi_align.cpp``, the header in ``ops/tensorrt/``: a setup.py computing its include
dirs in a function, a build script). When a quoted ``#include`` is found neither beside the unit nor on its
include path, but the path exists below one of the unit's own ancestor directories (within the project), the
nearest such ancestor is added to the unit's include path. Only ancestors: a header elsewhere in the tree (a
sibling's folder) may be another program's of the same name. The run says so (``FileFacts.guessed_includes``,
the summary's "include dirs guessed"): a guess is never silent."""

from __future__ import annotations

import os
import re
from pathlib import Path

_QUOTED = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)
MAX_GUESSES = 16  # include dirs one unit may gain


def guess_include_dirs(text: str, unit: str, include_dirs: list[str], root: str) -> list[tuple[str, str, int]]:
    """(absolute dir, include as written, line) for each directory to add: the nearest ancestor of ``unit``
    (within ``root``) below which a quoted include that resolves nowhere else exists."""
    if "#" not in text:
        return []
    unit_dir = os.path.dirname(unit)
    root = os.path.normpath(root)
    ancestors = []
    d = unit_dir
    while d.startswith(root):
        ancestors.append(d)
        if d == root:
            break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    out: list[tuple[str, str, int]] = []
    known = set(include_dirs)
    for m in _QUOTED.finditer(text):
        name = m.group(1).strip()
        if name.startswith(("/", "../", "./")) or ".." in name.split("/"):
            continue
        if os.path.isfile(os.path.join(unit_dir, name)) or any(os.path.isfile(os.path.join(i, name)) for i in known):
            continue
        for anc in ancestors[1:]:  # (the unit's own directory was tried above)
            if os.path.isfile(os.path.join(anc, name)):
                if anc not in known:
                    known.add(anc)
                    out.append((anc, name, text.count("\n", 0, m.start()) + 1))
                break
        if len(out) >= MAX_GUESSES:
            break
    return out


def shown_dir(d: str, root: str) -> str:
    """A guessed directory as the run names it: project-relative with a trailing slash ("./" for the root)."""
    try:
        rel = Path(d).relative_to(root).as_posix()
    except ValueError:
        return d
    return "./" if rel in ("", ".") else rel + "/"
