"""Kernel launches written in the body of a project macro (called from :meth:`.decls.UnitExtractor.attach_macros`).

A launch that a macro expands to has the macro's use as its extent: its ``<<<grid, block, smem, stream>>>`` is
not in that text, so :func:`.flow.launch_extras` leaves its stream unknown (``stream_arg`` None) and no rule
claims anything about it. When the macro is defined in a project file, its definition is read instead: the
launches of its body, in order, are matched one to one with the launches its expansion made (the same count,
the same kernel names), the macro's parameters in each launch configuration are replaced by the use's
arguments, and each launch gets its stream as written there (``""``: none) and, as ``defined_at``, where in the
definition it is written. A definition whose launches do not match (another macro inside, a configuration
that is a parameter alone and may hold several arguments) leaves the launches unknown, as before.

Only the modules of this package touch libclang cursors; the output is plain :mod:`trtlint.base.facts`.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Optional

from trtlint.base.facts import Call, Span
from .base import Cursor, split_top_level

_LAUNCH = re.compile(r"<<<(.*?)>>>", re.S)
_IDENT_END = re.compile(r"([A-Za-z_][\w:]*)\s*\Z")
_HEAD = re.compile(r"\s*#\s*define\s+([A-Za-z_]\w*)(\(([^)]*)\))?", re.S)


def _kernel_before(text: str, i: int) -> str:
    """The kernel's name written before ``<<<`` at ``i`` (template arguments skipped): its last component."""
    j = i
    while j > 0 and text[j - 1].isspace():
        j -= 1
    if j > 0 and text[j - 1] == ">":
        depth = 0
        while j > 0:
            j -= 1
            if text[j] == ">":
                depth += 1
            elif text[j] == "<":
                depth -= 1
                if depth == 0:
                    break
    m = _IDENT_END.search(text[:j])
    return m.group(1).split("::")[-1] if m else ""


def _definition(ex: Any, use: Cursor) -> Optional[tuple[str, str, int, list[str]]]:
    """(project path, the definition's text from its `#define`, the line that text starts on, parameter names)
    of the macro ``use`` expands; None when it is not defined in a project file."""
    try:
        d = use.referenced
        ext = d.extent if d is not None else None
        f = ext.start.file if ext is not None else None
    except Exception:  # noqa: BLE001 - a cursor libclang cannot answer for
        return None
    if f is None:
        return None
    rel = ex.rel_of(f.name)
    if rel is None:
        return None
    b = ex.file_bytes(f.name)
    o1, o2 = ext.start.offset, ext.end.offset
    # the extent starts at the macro's name: take the line from its `#define`
    start = b.rfind(b"\n", 0, o1) + 1
    text = b[start:o2].decode("utf-8", "replace")
    m = _HEAD.match(text)
    if m is None:
        return None
    params = [p.strip() for p in (m.group(3) or "").split(",") if p.strip()]
    return rel, text, b.count(b"\n", 0, start) + 1, params


def _substitute(cfg: str, params: list[str], args: tuple[str, ...]) -> Optional[str]:
    """The configuration with the macro's parameters replaced by the use's arguments; None when it cannot be known
    (fewer arguments than parameters, a variadic macro's ``__VA_ARGS__``)."""
    if "__VA_ARGS__" in cfg:
        return None
    if not params:
        return cfg
    if len(args) < len(params):
        return None
    table = dict(zip(params, args))
    return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: table.get(m.group(0), m.group(0)), cfg)


def fill_launches(ex: Any, use: Cursor, start: int, end: int, args: tuple[str, ...],
                  calls: list[tuple[int, Call]]) -> None:
    """Give the launches of one macro use (the function's ``calls`` at offsets ``start..end`` whose stream is
    unknown) the stream written in the macro's definition; ``calls`` is changed in place."""
    idx = [i for i, (off, c) in enumerate(calls)
           if start <= off < end and c.kind == "launch" and c.stream_arg is None]
    if not idx:
        return
    got = _definition(ex, use)
    if got is None:
        return
    rel, text, first_line, params = got
    body = text.replace("\\\n", "  ")  # (the same length: offsets and lines stay those of the file)
    found = [(m, _kernel_before(body, m.start())) for m in _LAUNCH.finditer(body)]
    if len(found) != len(idx):
        return
    for i, (m, kernel) in zip(idx, found):
        if not kernel or kernel != calls[i][1].callee.split("::")[-1].split("<")[0]:
            return
    for i, (m, _kernel) in zip(idx, found):
        cfg = _substitute(m.group(1), params, args)
        if cfg is None:
            continue
        parts = [p.strip() for p in split_top_level(" ".join(cfg.split()))]
        if len(parts) < 2:
            continue  # a configuration that is one parameter may hold all four
        line = first_line + text.count("\n", 0, m.start())
        bol = text.rfind("\n", 0, m.start()) + 1
        col = bol + len(body[bol:]) - len(body[bol:].lstrip()) - bol + 1
        stream = parts[3] if len(parts) >= 4 else ""
        off, call = calls[i]
        calls[i] = (off, dataclasses.replace(call, stream_arg=stream, stream=stream or None,
                                             defined_at=Span(rel, line, col)))

