"""Glob patterns with ``.gitignore`` semantics, compiled to matchers whose time is linear in the path.

Every gitignore-style pattern of a run (``include`` / ``exclude`` and the profile's excludes,
``per-file-ignores``, ``model-files``, ``test-lists``) is compiled here, through :func:`compile_spec` (used by
``discover.globspec``). The patterns come from the config, which on a pull request is attacker-controlled, and
they are matched against paths the pull request chooses too. Compiled naively, as a backtracking regular
expression with one ``[^/]*`` per ``*`` (as ``pathspec`` does), a pattern of 60 ``*`` or ``*a*a*a...b`` takes
time exponential in the number of stars on a long file name: one pattern stops the run for ever.

The semantics are those of Git (and of ``pathspec.GitIgnoreSpec``, which the tests compare against):

- a pattern without a ``/`` (or with one only at its end) matches at any depth; one with a ``/`` elsewhere is
  anchored at the root; a leading ``/`` anchors; a trailing ``/`` matches directories only;
- ``*`` matches within one path segment, ``?`` one character but ``/``, ``[...]`` a class (``[!...]`` or
  ``[^...]`` negated; a class never matches ``/``, as in Git), ``\\`` escapes; a pattern with an unclosed
  ``[`` is dropped, as Git does;
- ``**`` as a whole segment matches zero or more segments; ``**`` (or ``***``) inside a segment is ``*``;
- ``!pattern`` re-includes; the last pattern that matches the path itself decides, and failing one the last
  that matches one of its directories (``pathspec.GitIgnoreSpec``'s order).

What keeps matching linear: a run of ``*`` in a segment is one ``*``; between two ``*`` of a segment the
fixed-length piece is matched at its *first* occurrence and never revisited (an atomic group: with
fixed-length pieces the first occurrence leaves the most room for the rest, so nothing is lost); likewise a
run of segments between two ``**`` is matched at the first place it fits. Only the last piece of a segment
and the last run of segments are left to ordinary backtracking, which costs one pass over the path each.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Callable, Iterable, Optional

_DIR = "ps_d"  # the group that says a pattern matched through a directory of the path (pathspec's name)
_DIR_MARK = f"(?P<{_DIR}>/)"
_DIR_MARK_OPT = f"(?:{_DIR_MARK}|$)"
_ATOMIC = sys.version_info >= (3, 11)


class _Dropped(ValueError):
    """A pattern Git ignores (an unclosed ``[``)."""


class _Atoms:
    """Atomic groups: ``(?>...)`` where the ``re`` module has them (3.11), else the lookahead-and-backreference
    form ``(?=(?P<a1>...))(?P=a1)``, which matches the same way (a lookahead is never re-entered)."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self, body: str) -> str:
        if _ATOMIC:
            return f"(?>{body})"
        self.n += 1
        return f"(?=(?P<_a{self.n}>{body}))(?P=_a{self.n})"


def _chars(seg: str) -> list[str]:
    """The tokens of one segment glob: ``"*"`` or the regular expression of one character."""
    out: list[str] = []
    i, end = 0, len(seg)
    while i < end:
        c = seg[i]
        i += 1
        if c == "\\":
            if i < end:
                out.append(re.escape(seg[i]))
                i += 1
            # a trailing backslash escapes nothing (pathspec and Git ignore it)
        elif c == "*":
            out.append("*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i
            if j < end and seg[j] in "!^":
                j += 1
            if j < end and seg[j] == "]":
                j += 1
            while j < end and seg[j] != "]":
                j += 1
            if j >= end:
                raise _Dropped(seg)
            neg = seg[i] in "!^"
            body = seg[i + 1 if neg else i : j + 1].replace("\\", "\\\\")  # up to and with the closing "]"
            if neg:
                out.append("[^/" + ("\\" + body if body.startswith("]") else body))
            else:
                out.append("[" + body)
            i = j + 1
        else:
            out.append(re.escape(c))
    return out


def _segment(seg: str, atom: _Atoms) -> str:
    """One segment glob as a regular expression: pieces between stars at their first occurrence."""
    if seg == "*":
        return "[^/]+"
    toks = _chars(seg)
    if "*" not in toks:
        return "".join(toks)
    pieces: list[list[str]] = [[]]
    for t in toks:
        if t == "*":
            pieces.append([])
        else:
            pieces[-1].append(t)
    out = "".join(pieces[0])
    for mid in pieces[1:-1]:
        if mid:  # an empty piece is a run of stars: one star
            out += atom("[^/]*?" + "".join(mid))
    return out + "[^/]*" + "".join(pieces[-1])


def _normalize(is_dir: bool, segs: list[str]) -> tuple[Optional[list[str]], Optional[str]]:
    if not segs[0]:
        del segs[0]  # a leading "/" anchors at the root
    elif len(segs) == 1 or (len(segs) == 2 and not segs[1]):
        if segs[0] != "**":
            segs.insert(0, "**")  # a name alone matches at any depth
    if not segs:
        raise _Dropped("/")
    if not segs[-1]:
        segs[-1] = "**"  # "dir/" matches what is below the directory
    for i in range(len(segs) - 1, 0, -1):  # "**/**" is "**"
        if segs[i] == "**" and segs[i - 1] == "**":
            del segs[i]
    if segs == ["**"]:
        return None, (_DIR_MARK if is_dir else ".")
    if segs == ["**", "*"]:
        return None, "."
    if segs == ["**", "*", "**"]:
        return None, (_DIR_MARK if is_dir else "/")
    return segs, None


def _translate_segments(is_dir: bool, segs: list[str]) -> str:
    atom = _Atoms()
    last_plain = max(i for i, s in enumerate(segs) if s != "**")
    end = len(segs) - 1
    out: list[str] = []
    i = 0
    while i <= end:
        seg = segs[i]
        if seg == "**":
            if i == end:  # trailing: something below the directory
                out.append(_DIR_MARK if is_dir else "/")
                break
            # the run of plain segments after this "**"
            j = i + 1
            while segs[j] != "**":
                j += 1
                if j > end:
                    break
            run = "/".join(_segment(s, atom) for s in segs[i + 1 : j])
            if i == 0:
                lead_lazy, lead = "(?:.+?/)??", "^(?:.+/)?"
            else:
                lead_lazy, lead = "(?:/.+?)??/", "(?:/.+)?/"
            if j - 1 < last_plain:
                # a run a later "**" follows: its first fit leaves the most room for the rest
                out.append(("^" if i == 0 else "") + atom(lead_lazy + run + "(?=/)"))
            else:
                out.append(lead + run + (_DIR_MARK_OPT if j > end else ""))
            i = j
            continue
        # a run anchored at the root (the pattern's first segments)
        j = i
        while j <= end and segs[j] != "**":
            j += 1
        out.append("^" + "/".join(_segment(s, atom) for s in segs[i:j]) + (_DIR_MARK_OPT if j > end else ""))
        i = j
    return "".join(out)


def translate(pattern: str) -> tuple[Optional[str], Optional[bool]]:
    """``(regular expression, include)`` of one gitignore pattern; ``(None, None)`` for a blank line, a
    comment, ``/`` or a pattern Git drops. ``include`` is False for a ``!`` pattern."""
    if not pattern.endswith("\\ "):
        pattern = pattern.rstrip()
    if not pattern or pattern.startswith("#") or pattern == "/":
        return None, None
    include = True
    if pattern.startswith("!"):
        include, pattern = False, pattern[1:]
    segs = pattern.split("/")
    is_dir = not segs[-1]
    try:
        norm, override = _normalize(is_dir, segs)
        regex = override if override is not None else _translate_segments(is_dir, norm or [])
    except _Dropped:
        return None, None
    return regex, include


class GlobSpec:
    """Compiled gitignore-style patterns: :meth:`match_file` says whether a path is matched (not re-included
    by a later ``!`` pattern)."""

    def __init__(self, patterns: Iterable[str]):
        self.patterns = [p for p in patterns]
        # (compiled, include, find): the special forms ("." any path, "/" a path in a directory) are found
        # anywhere in the path, the others match from its start
        self._compiled: list[tuple[Callable[[str], Optional["re.Match[str]"]], bool]] = []
        for p in self.patterns:
            regex, include = translate(p)
            if regex is None or include is None:
                continue
            try:
                rx = re.compile(regex, re.S)
                self._compiled.append((rx.match if regex.startswith("^") else rx.search, include))
            except re.error:
                continue  # a class Python cannot compile ("[z-a]"): Git drops such a pattern too

    def match_file(self, path: str) -> bool:
        f = os.fspath(path)
        for sep in (os.sep, os.altsep):
            if sep and sep != "/":
                f = f.replace(sep, "/")
        if f.startswith("/"):
            f = f[1:]
        elif f.startswith("./"):
            f = f[2:]
        # the last pattern that matches the path itself decides; failing one, the last that matches a directory
        # of it (pathspec's GitIgnoreSpec, newest first)
        out = None
        for find, include in reversed(self._compiled):
            m = find(f)
            if m is None:
                continue
            if not m.groupdict().get(_DIR):
                return include
            if out is None:
                out = include
        return bool(out)


def compile_spec(patterns: Iterable[str]) -> Optional[GlobSpec]:
    """A :class:`GlobSpec` of the non-blank ``patterns``; None when there are none."""
    pats = [p for p in patterns if p and p.strip()]
    return GlobSpec(pats) if pats else None


# the matchers the rest of trtlint uses: patterns from config, profiles and rules, compiled when first matched
def globspec(patterns: Iterable[str]) -> Optional[GlobSpec]:
    """Patterns with .gitignore semantics (include/exclude, per-file-ignores, model-files, test-lists), compiled
    to a matcher whose time is linear in the path (:mod:`trtlint.base.globs`: a config is attacker-controlled in CI,
    and a pattern of 60 ``*`` must not backtrack for ever); None if empty."""
    return compile_spec(patterns)


class _MemoSpec:
    """A :func:`globspec` whose answers are remembered in ``memo`` (``probe -> matched``, kept by the engine in
    ``.trtlint_cache`` per pattern set): a warm run asks the same paths again and needs no pattern compiled
    (nor the compiler imported). Matching is a pure function of the patterns and the path."""

    def __init__(self, pats: list[str], memo: dict):
        self.pats = pats
        self.memo = memo
        self.spec = None
        self.dirty = False

    def match_file(self, probe: str) -> bool:
        hit = self.memo.get(probe)
        if hit is None:
            if self.spec is None:
                self.spec = globspec(self.pats)
            hit = self.memo[probe] = bool(self.spec.match_file(probe))
            self.dirty = True
        return hit


def globspec_memo(patterns: Iterable[str], memos: Optional[dict] = None):
    """:func:`globspec` of the non-blank ``patterns`` (None when there are none); with ``memos``, one whose
    matches are remembered in ``memos`` by pattern list, so a warm run matches each path once."""
    pats = [p for p in patterns if p and p.strip()]
    if not pats:
        return None
    if memos is None:
        return globspec(pats)
    key = "\n".join(pats)
    memo = memos.get(key)
    if not isinstance(memo, dict):
        memo = memos[key] = {}
    return _MemoSpec(pats, memo)
