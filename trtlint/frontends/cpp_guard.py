"""Include directives that must never reach libclang: a C++ file can name any path in ``#include``, and
libclang opens what it names. A device, FIFO or socket (``/dev/zero``, ``/dev/stdin``, ``/proc/self/fd/0`` -
in the LSP server that is the JSON-RPC stream) would block the parse, eat the protocol or read without end.

:func:`guard_includes` blanks such directives in the text handed to libclang (same length, so every offset
stays) and says so (a partial TRT001). Only ``stat`` is used to decide: nothing is opened. Regular files are
left alone (the file size limit of discovery does not apply to what libclang includes).
"""

from __future__ import annotations

import os
import re
import stat
from typing import Iterable

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*(?:include|include_next|import)[ \t]*([<"])([^>"\n]+)[>"]', re.M)
_SPECIAL_ROOTS = ("/dev/", "/proc/", "/sys/")


def _special(path: str) -> bool:
    """Whether ``path`` names something other than a regular file or directory (by ``stat``, not opened)."""
    norm = os.path.normpath(path)
    if any((norm + "/").startswith(r) for r in _SPECIAL_ROOTS):
        return True
    try:
        st = os.stat(norm)
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode))


def guard_includes(text: str, file_dir: str, include_dirs: Iterable[str] = ()) -> tuple[str, list[tuple[int, str]]]:
    """(text with dangerous includes blanked, [(line, included name)])."""
    if "#" not in text:
        return text, []
    found = []
    dirs = [file_dir, *include_dirs]
    for m in _INCLUDE.finditer(text):
        name = m.group(2).strip()
        cands = [name] if os.path.isabs(name) else [os.path.join(d, name) for d in (dirs if m.group(1) == '"' else dirs[1:])]
        if any(_special(c) for c in cands):
            found.append((m.start(), m.end(), name))
    if not found:
        return text, []
    out, last, where = [], 0, []
    for s, e, name in found:
        out.append(text[last:s])
        out.append(" " * (e - s))
        last = e
        where.append((text.count("\n", 0, s) + 1, name))
    out.append(text[last:])
    return "".join(out), where
