"""Debug-only code under a run-time switch: the then-branch of an ``if`` whose condition tests a debug switch.

The same extra work a debug build compiles in (:mod:`.debugarms`: a ``cudaDeviceSynchronize`` after each kernel to
find the failing one) is also written under a switch read at run time: ``if (level == "DEBUG")`` after
``getenv("FT_DEBUG_LEVEL")``, ``if (mDebug)``, ``if (isDebugMode())``, ``if (getenv("X_DEBUG"))``,
``if (logger.getLevel() == Logger::kDEBUG)``. A call in such a branch gets the same guard as one in a debug arm,
``"debug-only:if (<condition>)"`` (:data:`trtlint.base.facts.DEBUG_ONLY`), so every rule that respects a debug
build's extra work respects it too.

What is a test of a debug switch (:func:`is_debug_test`, on the condition's libclang tokens). A *debug word* is an
identifier component ``debug`` (split at ``_`` and at lower-to-upper case changes: ``DEBUG``, ``kDEBUG``, ``mDebug``,
``debug_``, ``isDebugMode``, ``FT_DEBUG_LEVEL``; not ``NDEBUG``, not ``DEBUGGER``). A term of the condition is a
debug test when it is

- a plain reference whose own name holds a debug word: ``mDebug``, ``this->debug_``, ``cfg.debug``,
  ``isDebugMode()``, ``logger.isDebugEnabled()`` (a call only without arguments: ``CubDebug(error = f())`` checks a
  status, ``markDebugStage(net, "b0", t)`` acts); or ``getenv("..._DEBUG...")`` (the variable is set); not a call
  that is only handed such a thing (``run(x, mDebug)``);
- ``X == D`` (either order) where ``D`` names the debug level itself: ``"DEBUG"``, ``kDEBUG``, ``Logger::DEBUG``,
  ``LogLevel::kDebug`` (a debug word with nothing but ``level`` / ``log`` / ``mode`` beside it: ``kDEBUG_OK`` is no
  level); ``strcmp(x, "DEBUG") == 0`` / ``!strcmp(x, "DEBUG")`` / ``x.compare("DEBUG") == 0``;
- ``R == true`` / ``R != false`` / ``R != nullptr`` / ``R != 0`` with ``R`` a reference as in the first case;
  ``R > n`` / ``R >= n`` (``n`` an integer literal, ``n >= 1`` for ``>=``), either order (``mDebugLevel > 0``).

A condition is a debug test when every ``||`` alternative holds a debug test among its ``&&`` conjuncts (``&&``
with anything else still needs the switch on). Not a debug test: a negation (``!mDebug``, ``level != "DEBUG"``:
the branch runs when the switch is off), an ordering against a debug level (``level >= kDEBUG``,
``level <= DEBUG``: whether that admits only the debug level depends on the enum's order, which differs between
loggers), anything the classifier cannot read. Only the then-branch counts (not the ``else``; not the code after
the ``if``; a ``while`` is no ``if``); an ``if`` written by a macro's expansion is not read.

A reference whose tokens show no debug word may still be a switch (the ``known`` argument of :func:`is_debug_test`,
from :mod:`.debugvalues`): a local whose declaration a debug build's arm compiles (``#ifndef NDEBUG`` ``bool const
checkError = true;``) and whose declaration in every other arm of that conditional is ``false``, a debug test by the
rules above, or a call of a *debug environment query* (a function without parameters whose value is false unless an
environment variable named for debugging is set: a debug word, or ``CUDA_LAUNCH_BLOCKING``); the same local when the
analysed build compiles the release arm and its initialiser is such; and a query's call itself
(``if (isCudaLaunchBlocking())``). Its guard says why: ``"debug-only:if (checkError); where checkError is
`isCudaLaunchBlocking()` outside `#ifndef NDEBUG`: true only when CUDA_LAUNCH_BLOCKING is set"``.
"""

from __future__ import annotations

import re
from typing import Callable, Optional, Sequence

# a test of the callers' own: whether a reference (its tokens) is a debug switch the tokens do not show (a local set
# by a debug build's arm, a call of a debug environment query: :mod:`.debugvalues`)
Known = Optional[Callable[[Sequence[str]], bool]]

# identifier components: runs of capitals (ending before a capitalised word), capitalised or lower-case words, digits
_COMPONENT = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_LEVEL_WORDS = frozenset({"debug", "level", "lvl", "log", "mode"})
_FALSY = frozenset({"nullptr", "NULL", "0", "false", "__null", "0L", "0u", "0U"})
_GETENV = frozenset({"getenv", "secure_getenv", "_dupenv_s", "GetEnvironmentVariable", "GetEnvironmentVariableA"})
_STRCMP = frozenset({"strcmp", "strcasecmp", "strncmp", "strncasecmp", "_stricmp", "stricmp", "compare"})
_COMPARE = frozenset({"==", "!=", ">", ">=", "<", "<="})


def components(word: str) -> list[str]:
    """The lower-cased components of an identifier (or a string literal's text)."""
    return [c.lower() for c in _COMPONENT.findall(word)]


def has_debug_word(word: str) -> bool:
    return "debug" in components(word)


def literal_text(tok: str) -> Optional[str]:
    """The text of a plain string literal token (``"DEBUG"``, ``u8"x"``), else None."""
    m = re.fullmatch(r'(?:u8|u|U|L)?"((?:[^"\\]|\\.)*)"', tok)
    return m.group(1) if m else None


def _is_level_name(word: str) -> bool:
    """``DEBUG``, ``kDEBUG``, ``eDebug``, ``LOG_LEVEL_DEBUG``, ``DebugMode``: a name of the debug level itself."""
    comps = components(word)
    if len(comps) > 1 and word[:1] in ("k", "e"):
        comps = comps[1:]  # a constant's prefix: kDEBUG, eDebug (not a member's: mDebug)
    return "debug" in comps and set(comps) <= _LEVEL_WORDS


def strip_parens(toks: Sequence[str]) -> Sequence[str]:
    """``toks`` without parentheses around all of them."""
    while len(toks) >= 2 and toks[0] == "(" and toks[-1] == ")":
        depth = 0
        for i, t in enumerate(toks):
            depth += t in ("(", "[", "{")
            depth -= t in (")", "]", "}")
            if depth == 0 and i < len(toks) - 1:
                return toks
        toks = toks[1:-1]
    return toks


def split_top(toks: Sequence[str], ops: frozenset) -> list[tuple[Optional[str], list[str]]]:
    """Split at the top-level tokens in ``ops``: [(the operator before the part, the part)]."""
    out: list[tuple[Optional[str], list[str]]] = [(None, [])]
    depth = 0
    for t in toks:
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and t in ops:
            out.append((t, []))
            continue
        out[-1][1].append(t)
    return out


def _is_name(t: str) -> bool:
    return re.fullmatch(r"[A-Za-z_]\w*", t) is not None


def _reference(toks: Sequence[str]) -> Optional[tuple[str, list[str]]]:
    """A plain reference: ``[this ->] name ((. | -> | ::) name)* [(args)]`` (a call only at the end):
    (its last name, the argument tokens of the final call, empty when it is no call); else None."""
    toks = list(strip_parens(toks))
    if not toks:
        return None
    args: list[str] = []
    if toks[-1] == ")":
        depth = 0
        for i in range(len(toks) - 1, -1, -1):
            depth += toks[i] == ")"
            depth -= toks[i] == "("
            if depth == 0:
                break
        else:
            return None
        args, toks = toks[i + 1:-1], toks[:i]
        if not toks:
            return None
    if toks[:2] == ["this", "->"]:
        toks = toks[2:]
    elif toks[:1] == ["::"]:
        toks = toks[1:]
    if not toks or len(toks) % 2 == 0:
        return None
    for i, t in enumerate(toks):
        if i % 2 == 0 and not _is_name(t):
            return None
        if i % 2 == 1 and t not in (".", "->", "::"):
            return None
    return toks[-1], args


def _debug_ref(toks: Sequence[str], known: Known = None) -> bool:
    """A reference whose own name holds a debug word, or ``getenv("..DEBUG..")``, or one ``known`` says is a switch."""
    if known is not None and known(list(strip_parens(toks))):
        return True
    ref = _reference(toks)
    if ref is None:
        return False
    name, args = ref
    if has_debug_word(name):
        # a call handed what it tests or acts on (`CubDebug(error = cudaMalloc(...))`, a check that logs in a debug
        # build; `markDebugStage(net, "b0", t)`) is no switch: only a query without arguments is
        return not args
    if name in _GETENV:
        return any(literal_text(a) is not None and has_debug_word(literal_text(a) or "") for a in args)
    return False


def _level_const(toks: Sequence[str]) -> bool:
    """``"DEBUG"`` or a (qualified) name of the debug level: ``kDEBUG``, ``Logger::DEBUG``."""
    toks = list(strip_parens(toks))
    if len(toks) == 1 and literal_text(toks[0]) is not None:
        return _is_level_name(literal_text(toks[0]) or "")
    ref = _reference(toks)
    return ref is not None and not ref[1] and toks[-1] != ")" and _is_level_name(ref[0])


def _strcmp_level(toks: Sequence[str]) -> bool:
    """``strcmp(x, "DEBUG")`` / ``x.compare("DEBUG")``: a comparison whose zero means the debug level."""
    ref = _reference(toks)
    if ref is None or ref[0] not in _STRCMP:
        return False
    return any(_level_const(part) for _op, part in split_top(ref[1], frozenset({","})))


def _int(toks: Sequence[str]) -> Optional[int]:
    toks = list(strip_parens(toks))
    if len(toks) == 1:
        m = re.fullmatch(r"(\d+)[uUlL]*", toks[0])
        if m:
            return int(m.group(1))
    return None


def _term(toks: Sequence[str], known: Known = None) -> bool:
    toks = list(strip_parens(toks))
    if not toks:
        return False
    if len(split_top(toks, frozenset({"||", "or", "&&", "and"}))) > 1:
        return is_debug_test(toks, known)  # a parenthesised group: `(a || b) && c`
    if toks[0] == "!":
        return _strcmp_level(toks[1:])  # `!strcmp(level, "DEBUG")`; any other negation: the switch is off
    parts = split_top(toks, _COMPARE)
    if len(parts) == 1:
        return _debug_ref(toks, known)
    if len(parts) != 2:
        return False  # `a < b > c`, a template argument list: not read
    lhs, (op, rhs) = parts[0][1], parts[1]
    if op == "==":
        if any(len(strip_parens(x)) == 1 and strip_parens(x)[0] in _FALSY for x in (lhs, rhs)):
            return any(_strcmp_level(a) and _int(b) == 0 for a, b in ((lhs, rhs), (rhs, lhs)))  # `debug == false`
        if _level_const(lhs) or _level_const(rhs):
            return True
        for a, b in ((lhs, rhs), (rhs, lhs)):
            if _debug_ref(a, known) and list(strip_parens(b)) in (["true"], ["1"]):
                return True
            if _strcmp_level(a) and _int(b) == 0:
                return True
        return False
    if op == "!=":
        return any(_debug_ref(a, known) and len(strip_parens(b)) == 1 and strip_parens(b)[0] in _FALSY for a, b in ((lhs, rhs), (rhs, lhs)))
    # an ordering: `mDebugLevel > 0`, `mDebugLevel >= 1`, `0 < mDebugLevel`
    if op in (">", ">="):
        ref, n = lhs, _int(rhs)
    else:
        ref, n = rhs, _int(lhs)
    if n is None or not _debug_ref(ref, known):
        return False
    return n >= 0 if op in (">", "<") else n >= 1


def is_debug_test(tokens: Sequence[str], known: Known = None) -> bool:
    """Whether a condition (its tokens, as spelled) tests a debug switch: every ``||`` alternative has a debug-test
    conjunct (the module doc); ``known`` names more switches (a reference's tokens -> whether it is one)."""
    toks = list(strip_parens(tokens))
    if not toks:
        return False
    for _op, alt in split_top(toks, frozenset({"||", "or"})):
        if not any(_term(c, known) for _o, c in split_top(strip_parens(alt), frozenset({"&&", "and"}))):
            return False
    return True
