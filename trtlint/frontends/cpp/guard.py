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


# compile flags that name a file or directory libclang opens: the value separate (``-include x``) or joined
_PATH_FLAGS = ("-include", "-imacros", "-isystem", "-iquote", "-idirafter", "-I")


def refuse_special_flags(args: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """``args`` without the include, include-dir and forced-include flags (``-include``, ``-imacros``, ``-I``,
    ``-isystem``, ``-iquote``, ``-idirafter``; separate or joined) whose path is a device, FIFO or socket, or lies
    under ``/dev``, ``/proc`` or ``/sys``: libclang would open it. Decided by ``stat`` and the path alone; the
    refused ones as [(flag, path)]."""
    out: list[str] = []
    refused: list[tuple[str, str]] = []
    i, n = 0, len(args)
    while i < n:
        a = args[i]
        if a in _PATH_FLAGS and i + 1 < n:
            if _special(args[i + 1]):
                refused.append((a, args[i + 1]))
            else:
                out += [a, args[i + 1]]
            i += 2
            continue
        for f in _PATH_FLAGS:
            if a.startswith(f) and len(a) > len(f):  # joined: -I/dev, -include/dev/zero
                if _special(a[len(f):]):
                    refused.append((f, a[len(f):]))
                else:
                    out.append(a)
                break
        else:
            out.append(a)
        i += 1
    return out, refused


def _candidates(delim: str, name: str, file_dir: str, include_dirs: list[str]) -> list[str]:
    if os.path.isabs(name):
        return [name]
    return [os.path.join(d, name) for d in ([file_dir, *include_dirs] if delim == '"' else include_dirs)]


def _dangerous(text: str, file_dir: str, include_dirs: list[str]) -> list[tuple[int, int, str]]:
    """[(start, end, name)] of the include directives of ``text`` that name a special file."""
    if "#" not in text:
        return []
    found = []
    for m in _INCLUDE.finditer(text):
        name = m.group(2).strip()
        if any(_special(c) for c in _candidates(m.group(1), name, file_dir, include_dirs)):
            found.append((m.start(), m.end(), name))
    return found


def guard_includes(text: str, file_dir: str, include_dirs: Iterable[str] = ()) -> tuple[str, list[tuple[int, str]]]:
    """(text with dangerous includes blanked, [(line, included name)])."""
    found = _dangerous(text, file_dir, list(include_dirs))
    if not found:
        return text, []
    return _blank(text, found)


def _blank(text: str, found: list[tuple[int, int, str]]) -> tuple[str, list[tuple[int, str]]]:
    out, last, where = [], 0, []
    for s, e, name in found:
        out.append(text[last:s])
        out.append(" " * (e - s))
        last = e
        where.append((text.count("\n", 0, s) + 1, name))
    out.append(text[last:])
    return "".join(out), where


# --------------------------------------------------------------- headers the unit pulls in

# Headers are walked for every unit that includes them: what a header includes (the regular files it
# resolves to, and whether it names a special file) is remembered by (path, mtime, size, include dirs), so a
# header costs one ``stat`` per unit that pulls it in, and one read and resolution per process.
_NODE: dict[tuple, tuple[tuple[str, ...], bool]] = {}
_MAX_HEADERS = 4000  # headers walked per unit (a bound on a hostile tree, far above real units)
_MAX_SCAN_BYTES = 8 << 20  # larger headers are not looked into


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            data = f.read(_MAX_SCAN_BYTES + 1)
    except OSError:
        return None
    if len(data) > _MAX_SCAN_BYTES:
        return None
    return data.decode("utf-8", "replace")


def _resolve(delim: str, name: str, file_dir: str, include_dirs: list[str], listed: bool = False) -> str | None:
    """The regular file an include resolves to (first candidate found, as the preprocessor searches). With
    ``listed``, a directory's listing (read once per :func:`forget_listings`) decides whether a candidate can
    exist before it is ``stat``-ed (most angled includes are system headers no project directory holds), and
    an absolute name is not followed."""
    if listed and os.path.isabs(name):
        return None
    cands = _candidates(delim, name, file_dir, include_dirs)
    if listed:
        first = name.split("/", 1)[0]
        cands = [c for d, c in zip([file_dir, *include_dirs] if delim == '"' else include_dirs, cands)
                 if first in _listing(d)]
    for c in cands:
        try:
            st = os.stat(c)
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(st.st_mode):
            return os.path.normpath(c)
        # a directory: the search goes on; a special file is blanked by the caller, never walked into
    return None


def _node(path: str, text: str | None, dirs: list[str]) -> tuple[tuple[str, ...], bool]:
    """(the regular files the header's includes resolve to, whether one of its includes is special)."""
    if not text or "#" not in text:
        return (), False
    hdir = os.path.dirname(path)
    kids, bad = [], False
    for m in _INCLUDE.finditer(text):
        delim, name = m.group(1), m.group(2).strip()
        # one stat per candidate decides both what it resolves to and whether any candidate is special
        # (as _special and _resolve each would: a candidate that names a special file leaves the include out)
        found, special = None, False
        for c in _candidates(delim, name, hdir, dirs):
            norm = os.path.normpath(c)
            if any((norm + "/").startswith(r) for r in _SPECIAL_ROOTS):
                special = True
                break
            try:
                st = os.stat(c)
            except (OSError, ValueError):
                st = None
            if norm != c:  # "..": the special test reads the normalised path, the search the spelled one
                try:
                    st_norm = os.stat(norm)
                except (OSError, ValueError):
                    st_norm = None
            else:
                st_norm = st
            if st_norm is not None and not (stat.S_ISREG(st_norm.st_mode) or stat.S_ISDIR(st_norm.st_mode)):
                special = True
                break
            if found is None and st is not None and stat.S_ISREG(st.st_mode):
                found = norm
        if special:
            bad = True
            continue
        if found:
            kids.append(found)
    return tuple(kids), bad


def guard_headers(text: str, file_path: str, include_dirs: Iterable[str] = (), unsaved: dict[str, str] | None = None,
                  reached: list[str] | None = None) -> tuple[list[tuple[str, str]], list[tuple[int, str, int, str]]]:
    """A header the unit includes (directly or through other headers) may itself include a device or FIFO,
    which libclang would open when it reads that header from disk. The unit's headers found in its own
    directory and the include dirs are walked (only ``stat`` and reads of regular files); each one that
    includes a special file is handed to libclang as an unsaved file with the directive blanked.

    ``text`` is the unit's (already guarded) text; ``unsaved``: open editor buffers (path -> text), read
    instead of the disk. Returns ([(header path, blanked text)], [(unit line that pulls the header in,
    header path, header line, included name)]). ``reached``, when given, gets the path of every header walked."""
    if "#" not in text:
        return [], []
    dirs = list(include_dirs)
    dkey = tuple(dirs)
    unsaved = unsaved or {}
    seen: set[str] = {os.path.normpath(file_path)}
    todo: list[tuple[str, int]] = []
    for m in _INCLUDE.finditer(text):
        r = _resolve(m.group(1), m.group(2).strip(), os.path.dirname(file_path), dirs)
        if r and r not in seen:
            seen.add(r)
            todo.append((r, text.count("\n", 0, m.start()) + 1))
    replaced: list[tuple[str, str]] = []
    where: list[tuple[int, str, int, str]] = []
    walked = 0
    while todo and walked < _MAX_HEADERS:
        path, unit_line = todo.pop()
        walked += 1
        if reached is not None:
            reached.append(path)
        if path in unsaved:
            kids, bad = _node(path, unsaved[path], dirs)
        else:
            try:
                st = os.stat(path)
            except OSError:
                continue
            key = (path, st.st_mtime_ns, st.st_size, dkey)
            got = _NODE.get(key)
            if got is None:
                if len(_NODE) > 100_000:  # a long LSP session: edits leave stale entries behind
                    _NODE.clear()
                got = _NODE[key] = _node(path, _read(path), dirs)
            kids, bad = got
        for k in kids:
            if k not in seen:
                seen.add(k)
                todo.append((k, unit_line))
        if bad:
            htext = unsaved.get(path) or _read(path) or ""
            blanked, lines = _blank(htext, _dangerous(htext, os.path.dirname(path), dirs))
            if lines:
                replaced.append((path, blanked))
                where.extend((unit_line, path, hline, name) for hline, name in lines)
    return replaced, where


# --------------------------------------------------------------- project headers a unit pulls in (the plan)

_PNODE: dict[tuple, tuple[str, ...]] = {}


def _listing(d: str) -> frozenset[str]:
    got = _LISTINGS.get(d)
    if got is None:
        try:
            got = frozenset(os.listdir(d))
        except OSError:
            got = frozenset()
        if len(_LISTINGS) > 20_000:
            _LISTINGS.clear()
        _LISTINGS[d] = got
    return got


_LISTINGS: dict[str, frozenset[str]] = {}


def forget_listings() -> None:
    """Directory listings are trusted from one call of this to the next (one plan of a run): files come and go
    between runs."""
    _LISTINGS.clear()


def project_headers(text: str, file_path: str, include_dirs: Iterable[str], root: str,
                    unsaved: dict[str, str] | None = None) -> list[str]:
    """The headers under ``root`` a unit pulls in through ``#include`` lines, directly or through other such
    headers, by text (every ``#if`` branch counts). Only regular files are read; headers outside ``root`` are
    not looked into. Paths as found (normalised, not resolved). Call :func:`forget_listings` first."""
    if "#" not in text:
        return []
    dirs = list(include_dirs)
    dkey = tuple(dirs)
    unsaved = unsaved or {}
    prefix = root.rstrip(os.sep) + os.sep
    seen: set[str] = {os.path.normpath(file_path)}
    order: list[str] = []
    todo = [(os.path.dirname(file_path), text, None)]
    walked = 0
    while todo and walked < _MAX_HEADERS:
        hdir, htext, key = todo.pop()
        walked += 1
        kids = _PNODE.get(key) if key is not None else None
        if kids is None:
            found = []
            for m in _INCLUDE.finditer(htext or ""):
                r = _resolve(m.group(1), m.group(2).strip(), hdir, dirs, listed=True)
                if r and r.startswith(prefix):
                    found.append(r)
            kids = tuple(found)
            if key is not None:
                if len(_PNODE) > 100_000:
                    _PNODE.clear()
                _PNODE[key] = kids
        for k in kids:
            if k in seen:
                continue
            seen.add(k)
            order.append(k)
            if k in unsaved:
                todo.append((os.path.dirname(k), unsaved[k], None))
                continue
            try:
                st = os.stat(k)
            except OSError:
                continue
            nkey = (k, st.st_mtime_ns, st.st_size, dkey)
            if nkey in _PNODE:
                todo.append((os.path.dirname(k), None, nkey))
            else:
                todo.append((os.path.dirname(k), _read(k), nkey))
    return order
