"""The build model's reader of ``compile_commands.json``: each unit's include dirs and defines (the file itself is
read by :mod:`trtlint.frontends.compdb`, within its size and depth limits)."""

from __future__ import annotations

import os

from trtlint.frontends import compdb
from trtlint.pipeline.buildmodel.model import UnitFlags
from trtlint.pipeline.buildmodel.walk import rel_path

MAX_SPLIT = 8 * 1024 * 1024  # characters of compile_commands.json "command" strings split, in all


def read_compile_commands(path: str, root: str) -> tuple[dict[str, UnitFlags], list[tuple[str, int, str]]]:
    """(unit -> its flags, problems): read by :func:`trtlint.frontends.compdb.load_entries` (size and depth
    limits); the last entry of a unit wins; "command" strings split within ``MAX_SPLIT`` characters in all."""
    shown = rel_path(os.path.normpath(os.path.abspath(path)), root) or path
    entries, why = compdb.load_entries(path, root)
    if entries is None:
        return {}, [(shown, 1, f"compile_commands.json not used: {why}")]
    out: dict[str, UnitFlags] = {}
    budget, over = MAX_SPLIT, 0
    for e in reversed(entries):
        try:
            d = str(e.get("directory", "") or "")
            fpath = os.path.normpath(os.path.join(d, str(e.get("file", ""))))
        except (AttributeError, TypeError, ValueError):
            continue
        rel = rel_path(fpath, root)
        if rel is None or rel in out:
            continue
        c = e.get("command")
        if not (isinstance(e.get("arguments"), list) and e["arguments"]) and isinstance(c, str):
            if len(c) > budget:
                over += 1
                continue
            budget -= len(c)
        args = compdb.entry_args(e)
        if args is None:
            continue
        out[rel] = _unit_flags(args, d)
    problems = []
    if over:
        problems.append((shown, 1, f"compile_commands.json: the compile commands of {over} units not read: over "
                                   f"{MAX_SPLIT} characters of commands in all (the build model's limit)"))
    return out, problems


def _unit_flags(args: list[str], d: str) -> UnitFlags:
    incs: list[str] = []
    defs: list[str] = []
    i = 1
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        if a in ("-I", "-isystem", "-iquote", "-idirafter") and nxt is not None:
            incs.append(os.path.normpath(os.path.join(d, nxt)))
            i += 2
            continue
        if a == "-D" and nxt is not None:
            defs.append(nxt)
            i += 2
            continue
        for p in ("-isystem", "-iquote", "-idirafter", "-I"):
            if a.startswith(p) and len(a) > len(p):
                incs.append(os.path.normpath(os.path.join(d, a[len(p):])))
                break
        else:
            if a.startswith("-D") and len(a) > 2:
                defs.append(a[2:])
        i += 1
    return UnitFlags(tuple(dict.fromkeys(incs)), tuple(dict.fromkeys(defs)), ("compile_commands.json",))
