"""Debug-only code: the arms of preprocessor conditionals that only a debug build compiles (a text scan of one file).

``#ifndef NDEBUG``, ``#if !defined(NDEBUG)``, the ``#else`` of ``#ifdef NDEBUG`` / ``#if defined(NDEBUG)``, and
``#ifdef DEBUG`` / ``#ifdef _DEBUG`` / ``#if DEBUG`` / ``#if defined(_DEBUG)``: code a release build (``-DNDEBUG``,
no ``DEBUG``) leaves out, written so by the project to check or trace what its release build does not. A call there
gets the guard ``"debug-only:<directive>"`` (:data:`trtlint.base.facts.DEBUG_ONLY`): the hot-path rules do not
judge a debug build's extra work (a ``cudaDeviceSynchronize`` after each kernel to find the failing one) as the
work of every inference. Only a whole conditional the scan can read counts: an ``#elif`` arm, or a condition
joining NDEBUG with anything else (``#if !defined(NDEBUG) || FORCE_SYNC``), is no debug arm.
"""

from __future__ import annotations

import re
from typing import Optional

_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b([^\n]*)", re.M)
# the condition of an arm only a debug build compiles (after #if / #ifdef / #ifndef)
_DEBUG_IF = (
    ("ifndef", re.compile(rb"\s*NDEBUG\s*(?://.*|/\*.*)?$")),
    ("if", re.compile(rb"\s*!\s*defined\s*\(?\s*NDEBUG\s*\)?\s*(?://.*|/\*.*)?$")),
    ("ifdef", re.compile(rb"\s*_?DEBUG\s*(?://.*|/\*.*)?$")),
    ("if", re.compile(rb"\s*(?:defined\s*\(?\s*_?DEBUG\s*\)?|_?DEBUG)\s*(?://.*|/\*.*)?$")),
)
# ... and one whose #else arm is: `#ifdef NDEBUG`, `#if defined(NDEBUG)`
_RELEASE_IF = (
    ("ifdef", re.compile(rb"\s*NDEBUG\s*(?://.*|/\*.*)?$")),
    ("if", re.compile(rb"\s*defined\s*\(?\s*NDEBUG\s*\)?\s*(?://.*|/\*.*)?$")),
)


# a file's conditionals (scan): its arms ``(group, start, end, directive, role)`` and the groups an ``#endif`` closed
Scan = tuple[list[tuple[int, int, int, str, str]], set[int]]


def _matches(table, kind: str, rest: bytes) -> bool:
    return any(kind == k and rx.match(rest) for k, rx in table)


def scan(data: bytes) -> Scan:
    """(``(group, start, end, directive, role)`` for every arm ended by a directive, the groups closed by an
    ``#endif``). ``role``: ``"debug"`` (only a debug build compiles it), ``"release"`` (only a release build: the
    ``#else`` of ``#ifndef NDEBUG``, the first arm of ``#ifdef NDEBUG``) or ``""``; the arms from an ``#elif`` on
    are ``""`` (the scan does not read them)."""
    out: list[tuple[int, int, int, str, str]] = []
    closed: set[int] = set()
    # per open conditional: [its group number, the role of its next #else arm, the current arm's role, where the
    # current arm starts, the directive shown for it, the opening directive]
    stack: list[list] = []
    groups = 0
    for m in _DIRECTIVE.finditer(data):
        kind, rest = m.group(1).decode(), m.group(2)
        line_end = data.find(b"\n", m.end())
        line_end = len(data) if line_end < 0 else line_end + 1
        shown = m.group(0).strip().decode("utf-8", "replace")
        if kind in ("if", "ifdef", "ifndef"):
            debug = _matches(_DEBUG_IF, kind, rest)
            release = _matches(_RELEASE_IF, kind, rest)
            role, other = ("debug", "release") if debug else ("release", "debug") if release else ("", "")
            stack.append([groups, other, role, line_end, shown, shown])
            groups += 1
        elif not stack:
            continue
        else:
            top = stack[-1]
            out.append((top[0], top[3], m.start(), top[4], top[2]))
            if kind == "endif":
                closed.add(top[0])
                stack.pop()
            elif kind == "else":
                top[2], top[3], top[4] = top[1], line_end, f"#else of {top[5]}"
                top[1] = ""
            else:  # elif: an arm the scan does not read
                top[1] = top[2] = ""
                top[3], top[4] = line_end, shown
    return out, closed


def debug_arms(data: bytes) -> list[tuple[int, int, str]]:
    """``(start, end, directive)``: the byte ranges of the file's debug-only arms (from the end of the directive's
    line to the start of the directive that ends the arm), outermost first; ``directive`` as written
    (``#ifndef NDEBUG``). An arm not closed by the end of the file is left out (the scan lost its way)."""
    return sorted((s, e, shown) for _g, s, e, shown, role in scan(data)[0] if role == "debug")


def sibling_arms(scanned: Scan, offset: int) -> Optional[tuple[tuple[int, int, str, str], list[tuple[int, int, str, str]]]]:
    """The arm holding byte ``offset`` of the innermost conditional (closed by its ``#endif``) around it, when that
    conditional has a debug-only arm: (``(start, end, directive, role)`` of that arm, the same of its other arms);
    else None. ``scanned``: the file's :func:`scan`; ``role`` as there (``"debug"``, ``"release"`` or ``""``)."""
    arms, closed = scanned
    best = None
    for g, s, e, _shown, _role in arms:
        if s <= offset < e and g in closed and (best is None or s > best[1]):
            best = (g, s)
    if best is None:
        return None
    group = [(s, e, shown, role) for g, s, e, shown, role in arms if g == best[0]]
    if not any(a[3] == "debug" for a in group):
        return None
    mine = next(a for a in group if a[0] == best[1])
    return mine, [a for a in group if a is not mine]


def arm_at(arms: list[tuple[int, int, str]], offset: int) -> str:
    """The directive of the debug-only arm holding the byte ``offset`` ("" when none)."""
    for start, end, shown in arms:
        if start <= offset < end:
            return shown
        if start > offset:
            break
    return ""
