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


def _matches(table, kind: str, rest: bytes) -> bool:
    return any(kind == k and rx.match(rest) for k, rx in table)


def debug_arms(data: bytes) -> list[tuple[int, int, str]]:
    """``(start, end, directive)``: the byte ranges of the file's debug-only arms (from the end of the directive's
    line to the start of the directive that ends the arm), outermost first; ``directive`` as written
    (``#ifndef NDEBUG``). An arm not closed by the end of the file is left out (the scan lost its way)."""
    out: list[tuple[int, int, str]] = []
    # per open conditional: [kind of the opening directive, its condition, whether the current arm is debug-only,
    # where the current arm starts, the directive that opened it]
    stack: list[list] = []
    for m in _DIRECTIVE.finditer(data):
        kind, rest = m.group(1).decode(), m.group(2)
        line_end = data.find(b"\n", m.end())
        line_end = len(data) if line_end < 0 else line_end + 1
        shown = m.group(0).strip().decode("utf-8", "replace")
        if kind in ("if", "ifdef", "ifndef"):
            debug = _matches(_DEBUG_IF, kind, rest)
            release = _matches(_RELEASE_IF, kind, rest)
            stack.append([release, debug, line_end, shown])
        elif not stack:
            continue
        else:
            top = stack[-1]
            if top[1]:
                out.append((top[2], m.start(), top[3]))
            if kind == "endif":
                stack.pop()
            elif kind == "else":
                top[1], top[2], top[3] = top[0], line_end, f"#else of {top[3]}"
                top[0] = False
            else:  # elif: an arm the scan does not read
                top[0] = top[1] = False
    out.sort()
    return out


def arm_at(arms: list[tuple[int, int, str]], offset: int) -> str:
    """The directive of the debug-only arm holding the byte ``offset`` ("" when none)."""
    for start, end, shown in arms:
        if start <= offset < end:
            return shown
        if start > offset:
            break
    return ""
