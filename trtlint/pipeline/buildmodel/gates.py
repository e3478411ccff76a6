"""Build options off by default, and the code only they build (issue 31): a branch of a CMake ``if()`` that only a
non-default value of a build option takes (``option(BUILD_X "..." OFF)`` or ``set(BUILD_X NO CACHE BOOL "...")``,
then ``if(BUILD_X)``, ``if(${BUILD_X})``, the ``else()`` of ``if(NOT BUILD_X)``), and a ``setup.py`` extension that
only a command-line flag adds (``if '--plugins' in sys.argv: ext_modules.append(ext)``).

The evaluator (:mod:`.cmake`) notes, for every source path a ``file(GLOB...)``, a target's source list or a literal
``set``/``list(APPEND)`` names, whether it was named inside such a branch (its *gate*) or outside every one. A unit
named only inside gated branches (and in no ``compile_commands.json`` entry) is built only with a non-default
option. The run sets aside the findings about such code only when the project itself marks the option as
experimental or deprecated (its name or description says so, or for a setup.py flag a line of the README that
names the flag does): code the project ships off and calls unfinished or on its way out (:func:`marked_builds`). An
option not so marked (``BUILD_TRT "Build projects about TensorRT" OFF``) is judged like the rest: off by default
says nothing about whether its users build it.

Evidence decides in the direction of judging: a condition other than a lone option (``if(BUILD_X AND UNIX)``,
``if(CMAKE_BUILD_TYPE STREQUAL ...)``), an ``elseif`` arm, an option set again as a plain variable, a path also
named outside every gate, each leaves the code judged.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from typing import Iterable, Optional

from trtlint.base import safeio

_TRUE = {"1", "ON", "YES", "TRUE", "Y"}
_FALSE = {"0", "OFF", "NO", "FALSE", "N", "IGNORE", "NOTFOUND", ""}
_VAR = re.compile(r"^\$\{([A-Za-z0-9_.+-]+)\}$")
# the words by which a project marks code as unfinished or on its way out
_MARK = re.compile(r"(?<![A-Za-z])(experimental|deprecated|legacy|obsolete)(?![a-z])", re.I)
_README = re.compile(r"^readme(\.(md|rst|txt))?$", re.I)
UNIT_EXT = (".c", ".cc", ".cpp", ".cxx", ".cu")


@dataclass(frozen=True)
class Gate:
    """A build option's non-default value, which a branch needs: ``option`` its name (or ``setup.py --flag``),
    ``needs`` the value the branch needs ("ON" / "OFF"; "" for a flag), ``where`` the branch (``path:line`` of the
    ``if``), ``default`` the default as written, ``decl`` where the option is declared, ``doc`` its description."""

    option: str
    needs: str
    where: str
    default: str = ""
    decl: str = ""
    doc: str = ""


def truth(value: str) -> Optional[bool]:
    """CMake's truth of a constant (``ON``, ``NO``, ``0``...); None for anything else."""
    v = value.strip().upper()
    if v in _TRUE:
        return True
    if v in _FALSE or v.endswith("-NOTFOUND"):
        return False
    try:
        return float(v) != 0
    except ValueError:
        return None


def option_declared(name: str, args: tuple) -> Optional[tuple[str, str, str]]:
    """``(name, default as written, description)`` when the command declares a boolean option: ``option(NAME "doc"
    [value])`` (value OFF when none is written) or ``set(NAME value CACHE BOOL "doc" [FORCE])``; else None."""
    words = [a for a, _q in args]
    if name == "option" and len(words) >= 1:
        return words[0], (words[2] if len(words) > 2 else "OFF"), (words[1] if len(words) > 1 else "")
    if name == "set" and len(words) >= 4 and words[2] == "CACHE" and words[3].upper() == "BOOL":
        return words[0], words[1], (words[4] if len(words) > 4 else "")
    return None


def condition(args: tuple) -> Optional[tuple[str, bool]]:
    """``(variable, negated)`` for a condition that is a lone variable (``X``, ``${X}``, ``NOT X``); else None."""
    words = [a for a, _q in args]
    neg = False
    if len(words) == 2 and words[0].upper() == "NOT":
        neg, words = True, words[1:]
    if len(words) != 1:
        return None
    m = _VAR.match(words[0])
    name = m.group(1) if m else words[0]
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return None
    return name, neg


def marked(text: str) -> str:
    """The word by which ``text`` marks code experimental or deprecated ("" when none)."""
    m = _MARK.search(text.replace("_", " "))
    return m.group(1).lower() if m else ""


def why_marked(g: Gate) -> str:
    """Why the project marks the gate's code experimental or deprecated, in a few words ("" when it does not): the
    option's name, its description, or a README line naming a setup.py flag (the flag gate's ``doc``)."""
    if marked(g.option):
        return f"its name says {marked(g.option)}"
    if marked(g.doc):
        return f"{g.decl} says {marked(g.doc)}: {_around(g.doc)!r}" if g.decl else f"described as {marked(g.doc)}"
    return ""


def _around(s: str, n: int = 50) -> str:
    """``s`` (its spaces folded), or the ``n`` characters either side of its marking word."""
    s = " ".join(s.split())
    m = _MARK.search(s.replace("_", " "))
    if len(s) <= 2 * n or m is None:
        return s
    a, b = max(0, m.start() - n), min(len(s), m.end() + n)
    return ("..." if a else "") + s[a:b] + ("..." if b < len(s) else "")


def flag_doc(root: str, setup_dir: str, flag: str, max_file_size: int) -> tuple[str, str]:
    """``(where, line)``: the first line of a README beside the setup.py or at the root that names ``flag`` and
    marks it experimental or deprecated; ("", "") when none does."""
    dirs = [setup_dir] + ([""] if setup_dir else [])
    word = re.compile(r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])")
    for d in dirs:
        try:  # (discovery lists no README: the directory is listed here)
            listed = os.listdir(os.path.join(root, d) if d else root)
        except OSError:
            listed = []
        names = sorted(posixpath.join(d, b) if d else b for b in listed if _README.match(b))
        for rel in names:
            try:
                data = safeio.read_bytes(os.path.join(root, rel), root, max_file_size)
            except safeio.ReadRefused:
                continue
            for i, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
                if word.search(line) and marked(line):
                    return f"{rel}:{i}", line.strip()
    return "", ""


def marked_builds(optional: dict, built_elsewhere: Iterable[str] = ()) -> tuple:
    """The code only a marked gate builds: ``((option, needs, where, why, units), ...)`` sorted, one per option, from
    ``optional`` (unit -> its Gate), leaving out the units of ``built_elsewhere`` (a ``compile_commands.json``
    entry: the configured build compiles them)."""
    skip = set(built_elsewhere)
    by: dict[str, list] = {}
    for rel, g in optional.items():
        why = why_marked(g)
        if not why or rel in skip or not rel.endswith(UNIT_EXT):
            continue
        e = by.setdefault(g.option, [g, why, []])
        e[2].append(rel)
    return tuple((o, g.needs, g.where, why, tuple(sorted(us))) for o, (g, why, us) in sorted(by.items()))


def setup_flag_gates(root: str, rels: Iterable[str], max_file_size: int) -> dict:
    """unit -> Gate: the sources of each ``setup.py`` extension only a command-line flag adds (``--plugins``), with
    the README line naming the flag as its ``doc`` when one marks it; a source another extension of the tree also
    builds is left out. Each setup.py is read through safeio and parsed, never run."""
    from trtlint.frontends.setuppy import read_setup

    present = set(rels)
    gated: dict = {}
    plain: set = set()
    for rel in sorted(p for p in present if posixpath.basename(p) == "setup.py"):
        try:
            data = safeio.read_bytes(os.path.join(root, rel), root, max_file_size)
        except safeio.ReadRefused:
            continue
        exts = read_setup(data.decode("utf-8", "replace")) or []
        d = posixpath.dirname(rel)
        for e in exts:
            srcs = [posixpath.normpath(posixpath.join(d, s)) for s in e.sources if isinstance(s, str)]
            if not e.flag:
                plain.update(srcs)
                continue
            where, line = flag_doc(root, d, e.flag, max_file_size)
            g = Gate(option=f"setup.py {e.flag}", needs="", where=f"{rel}:{e.flag_line}", decl=where, doc=line)
            for s in srcs:
                gated.setdefault(s, g)
    return {s: g for s, g in gated.items() if s not in plain}
