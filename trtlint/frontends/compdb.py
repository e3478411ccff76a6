"""``compile_commands.json``, read with limits: the one reader of it (the build model and the C++ frontend's flags
both use :func:`load_entries`).

The file is project input like any other (a pull request can add one, or a link named so), so it is read
through :mod:`trtlint.base.safeio` (a regular file; inside the project root when it lies there, a link out of the
root refused; at most ``MAX_SIZE`` bytes) and its nesting is measured before ``json.loads`` sees it: a file
nested deeper than ``MAX_DEPTH`` (a real one is 3 deep: the list, an entry, its ``arguments``) is refused, so
the decoder's recursion never runs out. A refusal is a reason for the user; the caller says it (TRT001) and
goes on without the file's flags.
"""

from __future__ import annotations

import json
import os
import re
from typing import Optional

from trtlint.base import safeio

MAX_SIZE = 64 * 1024 * 1024  # bytes; a large project's file is a few MB
MAX_DEPTH = 32  # levels of [ ] and { }
MAX_COMMAND = 2 * 1024 * 1024  # characters of one entry's "command" (Linux's ARG_MAX): a longer one is not split

_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def too_deep(data: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether the JSON text ``data`` nests more than ``limit`` levels of arrays and objects. Cheap (3 ms for a
    4 MB file, a tenth of json.loads): only the brackets are kept and the innermost pairs removed, at least one
    level per pass (C-speed byte operations, at most ``limit`` passes). Brackets inside strings count too, so
    the depth can only be over-counted (a real file nests 3 deep, far from the limit). Unbalanced brackets
    are json.loads's to reject."""
    s = data.translate(None, _NOT_BRACKETS)
    for _ in range(limit):
        t = s.replace(b"[]", b"").replace(b"{}", b"")
        if not t or t == s:
            return False
        s = t
    return bool(s) and (b"[]" in s or b"{}" in s)


def load_entries(path: str, root: Optional[str]) -> tuple[Optional[list], Optional[str]]:
    """(the entries of the ``compile_commands.json`` at ``path``, None) or (None, why it was not used).
    ``root``: the project root; a path inside it is read only inside it (a link out of it is refused), a path
    outside it (a build directory the config names) is read as a regular file of at most ``MAX_SIZE`` bytes."""
    inside = root is not None and _under(path, root)
    try:
        data = safeio.read_bytes(path, root if inside else None, MAX_SIZE)
    except safeio.ReadRefused as e:
        return None, e.reason
    if too_deep(data):
        return None, f"nested more than {MAX_DEPTH} levels deep (the depth limit); not read"
    try:
        entries = json.loads(data.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError) as e:
        return None, f"not valid JSON ({str(e)[:120]}); not read"
    if not isinstance(entries, list):
        return None, "not a JSON list of compile commands; not read"
    return entries, None


def _under(path: str, root: str) -> bool:
    """Whether ``path`` as written (its own link not followed) lies in ``root`` (as given or resolved)."""
    p = os.path.abspath(path)
    return any(p.startswith(r.rstrip(os.sep) + os.sep) for r in (os.path.abspath(root), os.path.realpath(root)))


# a shell word of a "command" string: unquoted characters, '...' , "..." (backslash escapes) and \x, run together
_WORD = re.compile(r"""(?:[^\s'"\\]+|'[^']*'|"(?:[^"\\]|\\.)*"|\\.)+""", re.S)
_PIECE = re.compile(r"""'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)|([^'"\\]+)""", re.S)
_DQ_ESCAPE = re.compile(r'\\([\\"$`\n])')


def _unquote(m: "re.Match[str]") -> str:
    if m.group(1) is not None:
        return m.group(1)
    if m.group(2) is not None:
        return _DQ_ESCAPE.sub(r"\1", m.group(2))
    if m.group(3) is not None:
        return m.group(3)
    return m.group(4)


def split_command(command: str) -> list[str]:
    """The words of a POSIX shell command line, as ``shlex.split`` gives them for a well-formed one, in linear
    time at regex speed (``shlex`` reads about 1 MB/s: a few large ``command`` strings would take minutes). An
    unterminated quote ends the word before it (shlex would raise)."""
    if not any(c in command for c in "'\"\\"):
        return command.split()
    out = []
    for w in _WORD.findall(command):
        if "'" in w or '"' in w or "\\" in w:
            w = _PIECE.sub(_unquote, w)
        out.append(w)
    return out


def entry_args(e: object) -> Optional[list[str]]:
    """An entry's compiler arguments (``arguments``, else ``command`` split), or None for a malformed entry."""
    if not isinstance(e, dict):
        return None
    a = e.get("arguments")
    if isinstance(a, list) and a:
        return [str(x) for x in a]
    c = e.get("command")
    return split_command(c) if isinstance(c, str) and len(c) <= MAX_COMMAND else None
