"""Programs built by a Makefile or a setup.py (issue 33): each one's units, include dirs and defines, from the
build file's text (:mod:`trtlint.frontends.makefile`, :mod:`trtlint.frontends.setuppy`; make and setup.py are
never run). An ``include``d Makefile is read in its place, as make does (at most ``MAX_INCLUDE_DEPTH`` deep,
inside the project, through :mod:`trtlint.base.safeio`)."""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from typing import Optional

from trtlint.base import safeio
from ...frontends.makefile import UNIT_EXT, MakeFacts, include_words, read_makefile, read_vars
from ...frontends.setuppy import read_setup
from ...frontends.buildscript import read_script

MAKEFILES = ("Makefile", "makefile", "GNUmakefile")
MAX_INCLUDE_DEPTH = 4
MAX_TEXT = 4 * 1024 * 1024  # characters of one Makefile with its includes
_INCLUDE_LINE = re.compile(r"^(-|s)?include\s+(.+)$", re.M)


def makefile_of(root: str, d: str, present: set) -> Optional[str]:
    """The root-relative path of the Makefile in directory ``d`` ("" for the root), or None."""
    for m in MAKEFILES:
        rel = posixpath.join(d, m) if d else m
        if rel in present or os.path.isfile(os.path.join(root, rel)):
            return rel
    return None


MAX_SCRIPTS = 8  # shell scripts read per directory when looking for a build script


def script_of(root: str, d: str, present: set, limit: int = 1 << 20) -> Optional[str]:
    """The root-relative path of a shell script in directory ``d`` that runs a C++/CUDA compiler, or None."""
    prefix = d + "/" if d else ""
    n = 0
    for rel in sorted(p for p in present if p.startswith(prefix) and p.endswith(".sh") and "/" not in p[len(prefix):]):
        n += 1
        if n > MAX_SCRIPTS:
            break
        text = _read(root, rel, limit)
        if text is not None and ("nvcc" in text or "g++" in text or "clang" in text) and read_script(text).commands:
            return rel
    return None


def build_file_kind(root: str, d: str, present: set) -> Optional[str]:
    """"setup.py" or "Makefile" when directory ``d`` holds one (a setup.py first), else None."""
    if (posixpath.join(d, "setup.py") if d else "setup.py") in present:
        return "setup.py"
    return "Makefile" if makefile_of(root, d, present) else None


def _read(root: str, rel: str, limit: int) -> Optional[str]:
    data = safeio.try_read_bytes(os.path.join(root, rel), root=root, limit=limit)
    if data is None:
        return None
    return data.decode("utf-8", "replace")


def _found_above(root: str, base: str, tail: str) -> Optional[str]:
    """The nearest of ``base`` (a Makefile's directory) and the directories above it, inside the project, that
    holds the file ``tail``: as a path relative to ``base`` (``.``, ``..``, ...), else None."""
    d, up = base, []
    while True:
        inc = posixpath.normpath(posixpath.join(d, tail)) if d else posixpath.normpath(tail)
        if not (inc.startswith("../") or inc == ".." or posixpath.isabs(inc)) and os.path.isfile(os.path.join(root, inc)):
            return "/".join(up) or "."
        if not d or len(up) >= 16:
            return None
        d = posixpath.dirname(d)
        up.append("..")


def _with_includes(root: str, rel: str, text: str, limit: int, depth: int = 0, src: str = "",
                   vars: Optional[dict] = None, unread: Optional[list] = None, budget: Optional[list] = None) -> str:
    """``text`` with each ``include FILE`` line replaced by FILE's text (paths relative to the Makefile's
    directory, make's working directory; a file outside the project or not there is left out, as ``-include``).
    Variables in the line are expanded with what the text before it sets (``vars``, kept up to date as the text is
    read, once: :func:`read_vars`); an include ``$(VAR)/tail`` whose VAR make computes (``$(shell ...)``) or takes
    from the environment is read from the nearest directory at or above the Makefile's that holds ``tail``, and VAR
    is set to that directory for the rest of the text (the project's top, as such a shell loop finds it).
    ``unread`` collects the plain ``include`` lines read nowhere: (file, line, the include as written, why). At
    most ``MAX_TEXT`` characters of included files are read in all (``budget``)."""
    vars = {} if vars is None else vars
    if depth >= MAX_INCLUDE_DEPTH or "include" not in text:
        read_vars(text, vars)  # (what an included file sets counts for the includer's later lines)
        return text
    base = posixpath.dirname(rel)
    src = src or rel
    budget = [MAX_TEXT] if budget is None else budget
    out: list[str] = []
    pos = 0
    for m in _INCLUDE_LINE.finditer(text):
        out.append(text[pos:m.start()])
        read_vars(out[-1], vars)
        pos = m.end()
        parts = []
        for how, what in include_words(vars, m.group(2)):
            if how == "unknown":
                if not m.group(1) and unread is not None:
                    unread.append((src, text.count("\n", 0, m.start()) + 1, m.group(0).strip(),
                                   f"make computes {what} in a way not followed here"))
                continue
            if how == "prefixed":
                var, tail = what.split("\0", 1)
                top = _found_above(root, base, tail)
                if top is None:
                    if not m.group(1) and unread is not None:
                        unread.append((src, text.count("\n", 0, m.start()) + 1, m.group(0).strip(),
                                       f"$({var}) is computed or set outside the file, and neither the Makefile's "
                                       f"directory nor one above it holds {tail}"))
                    continue
                parts.append(f"{var} := {top}")
                vars[var] = top
                what = posixpath.join(top, tail)
            if "*" in what or "?" in what or posixpath.isabs(what):
                continue
            inc = posixpath.normpath(posixpath.join(base, what))
            if inc.startswith("../") or inc == ".." or budget[0] <= 0:
                continue
            try:
                if os.path.getsize(os.path.join(root, inc)) > budget[0]:
                    budget[0] = 0  # (it does not fit in what is left: nothing more is read)
                    continue
            except OSError:
                continue  # (not there: make's -include; a plain one is the program's missing_include)
            t = _read(root, inc, limit)
            if t is not None:
                budget[0] -= len(t)
                parts.append(_with_includes(root, rel, t, limit, depth + 1, inc, vars, unread, budget))
        out.append("\n".join(parts))
    out.append(text[pos:])
    read_vars(out[-1], vars)
    return "".join(out)[:MAX_TEXT]


_RULE_TARGETS = re.compile(r"^([^\s:=#][^:=#\n]*?)[ \t]*::?(?!=)", re.M)


def missing_include(root: str, makefile: str, text: str, present: set) -> Optional[tuple[int, str]]:
    """(line, the name as written) of the first ``include FILE`` line of the Makefile's own ``text`` that make
    stops at: a plain ``include`` (not ``-include``/``sinclude``) of a literal path inside the project, reached
    by climbing out of the Makefile's directory (``../``), into a directory the tree does not have, which no rule
    of the Makefile makes. Make reads every ``include`` before it builds anything and fails on a file that is
    neither there nor made by a rule ("No such file or directory"), so nothing of this program builds as the
    tree stands: a Makefile moved away from the shared file it includes. A file a configure step would write
    beside it (``include config.mk``, ``include ../config.mk`` into a directory the tree has) is not this: the
    directory must be absent too. None when every include can be read or made."""
    base = posixpath.dirname(makefile)
    targets = {w for m in _RULE_TARGETS.finditer(text) for w in m.group(1).split()}
    for n, line in enumerate(text.splitlines(), 1):
        m = _INCLUDE_LINE.match(line.strip())
        if m is None or m.group(1):
            continue
        for w in m.group(2).split("#", 1)[0].split():
            if "$" in w or "*" in w or "?" in w or "[" in w or not w.startswith("../") or w in targets:
                continue
            inc = posixpath.normpath(posixpath.join(base, w))
            if inc.startswith("../") or inc == ".." or posixpath.isabs(inc):
                continue  # outside the project: the tree may sit in a larger checkout
            parent = posixpath.dirname(inc)
            if inc in present or os.path.exists(os.path.join(root, inc)):
                continue
            if not parent or os.path.isdir(os.path.join(root, parent)) or any(p.startswith(parent + "/") for p in present):
                continue
            return n, w
    return None


def read_program(root: str, d: str, makefile: str, rels: list[str], limit: int,
                 unread: Optional[list] = None) -> Optional[tuple[MakeFacts, list[str], list[str]]]:
    """The Makefile's facts, the units it compiles (root-relative) and its include dirs (absolute); None when
    the Makefile cannot be read. ``unread`` collects its plain ``include`` lines not read (:func:`_with_includes`);
    with one, its source list is not known."""
    text = _read(root, makefile, limit)
    if text is None:
        return None
    missed: list = []
    text = _with_includes(root, makefile, text, limit, unread=missed)
    prefix = d + "/" if d else ""
    in_dir = [r[len(prefix):] for r in rels if r.startswith(prefix)]

    def files_in_dir(pattern: str) -> list[str]:
        pat = pattern[2:] if pattern.startswith("./") else pattern
        if pat.startswith("/") or ".." in pat.split("/"):
            return []
        return [f for f in in_dir if fnmatch.fnmatchcase(f, pat) and f.count("/") == pat.count("/")]

    facts = read_makefile(text, files_in_dir)
    if missed:
        facts.sources_known = False
        facts.unknown_why = ", ".join(filter(None, [facts.unknown_why, "an include not read"]))
        if unread is not None:
            unread.extend(missed)
    present = set(rels)
    units = []
    for src, _line in facts.sources:
        rel = posixpath.normpath(posixpath.join(d, src)) if not src.startswith("/") else None
        if rel and rel in present:
            units.append(rel)
    stems = {posixpath.normpath(posixpath.join(d, o[:-2])) for o, _ln in facts.objects}
    if stems:
        for r in rels:
            if r.lower().endswith(UNIT_EXT) and posixpath.splitext(r)[0] in stems:
                units.append(r)
    d_abs = os.path.join(root, d) if d else root
    incs = [os.path.normpath(i if os.path.isabs(i) else os.path.join(d_abs, i)) for i in facts.include_dirs]
    return facts, list(dict.fromkeys(units)), incs


def programs_flags(root: str, rels: list[str], programs: dict, owner: dict, limit: int):
    """For each program found by its Makefile: ``(makefile, dir, sources, include dirs, defines, owned units)``
    (a source list make computes, ``$(shell find ...)``: the owned units are its sources); the problems (a
    Makefile that could not be read: path, line, message); and the programs whose Makefile make cannot run
    (:func:`missing_include`): ``(makefile, line, include as written, its units)``."""
    found, problems, unrunnable = [], [], []
    present = set(rels)
    by_dir: dict[str, list[str]] = {}
    for rel, d in owner.items():
        by_dir.setdefault(d, []).append(rel)
    for d, how in sorted(programs.items()):
        if how == "script":
            sc = script_of(root, d, present, limit)
            text = _read(root, sc, limit) if sc else None
            if text is not None:
                f = read_script(text)
                d_abs = os.path.join(root, d) if d else root
                owned = sorted(by_dir.get(d, []))
                srcs = [r for r in (posixpath.normpath(posixpath.join(d, x)) for x, _ln in f.sources if not x.startswith("/"))
                        if r in present] or owned
                incs = tuple(dict.fromkeys(os.path.normpath(i if os.path.isabs(i) else os.path.join(d_abs, i))
                                           for i in f.include_dirs))
                found.append((sc, d, tuple(dict.fromkeys(srcs)), incs, tuple(f.defines), tuple(owned)))
            continue
        if how == "setup.py":
            got_s = _setup_program(root, d, present, sorted(by_dir.get(d, [])), limit)
            if isinstance(got_s, str):
                problems.append((got_s, 0, "the setup.py could not be read or parsed (its extensions are not known)"))
            elif got_s is not None:
                found.append(got_s)
            continue
        if how != "Makefile":
            continue
        mk = makefile_of(root, d, present)
        if mk is None:
            continue
        unread: list = []
        got = read_program(root, d, mk, rels, limit, unread)
        if got is None:
            problems.append((mk, 0, "the Makefile could not be read (not a regular file inside the project, or too large)"))
            continue
        for f, ln, written, why in unread:
            problems.append((f, ln, f"`{written}` not read: {why}; the program's sources, include dirs and defines "
                                    f"are taken without it"))
        facts, srcs, incs = got
        owned = sorted(by_dir.get(d, []))
        srcs = srcs if facts.sources_known else list(dict.fromkeys(srcs + owned))
        found.append((mk, d, tuple(srcs), tuple(incs), tuple(facts.defines), tuple(owned)))
        own_text = _read(root, mk, limit)
        gone = missing_include(root, mk, own_text, present) if own_text is not None else None
        if gone is not None:
            unrunnable.append((mk, gone[0], gone[1], tuple(dict.fromkeys(list(srcs) + owned))))
    return found, problems, unrunnable


def _setup_program(root: str, d: str, present: set, owned: list[str], limit: int):
    """A setup.py program as ``programs_flags`` gives it; the setup.py's path when it cannot be read or parsed;
    None when it builds no extension."""
    rel = posixpath.join(d, "setup.py") if d else "setup.py"
    text = _read(root, rel, limit)
    exts = read_setup(text) if text is not None else None
    if exts is None:
        return rel
    if not exts:
        return None
    d_abs = os.path.join(root, d) if d else root
    srcs, incs, defs, known = [], [], [], True
    for e in exts:
        known = known and e.sources_known
        for s in e.sources:
            r = posixpath.normpath(posixpath.join(d, s)) if not s.startswith("/") else None
            if r and r in present:
                srcs.append(r)
        incs += [os.path.normpath(i if os.path.isabs(i) else os.path.join(d_abs, i)) for i in e.include_dirs]
        defs += e.defines
    srcs = srcs if known else srcs + owned
    return (rel, d, tuple(dict.fromkeys(srcs)), tuple(dict.fromkeys(incs)), tuple(dict.fromkeys(defs)), tuple(owned))
