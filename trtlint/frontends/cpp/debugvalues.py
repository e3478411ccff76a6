"""Values that are a debug switch without a debug word in their name: a local set by a debug build's arm, a query of a
debugging environment variable (the token-level half of :mod:`.debugswitch`'s extension; the body walk's
``Guards.debug_switch`` resolves the cursors).

**A local set by a debug build's arm.** ::

    #ifndef NDEBUG
        const bool checkError = true;
    #else
        const bool checkError = isCudaLaunchBlocking();
    #endif
        if (checkError) { cudaDeviceSynchronize(); ... }

A release build does not compile the first declaration: there ``checkError`` is the other arm's initialiser. The
local is a debug switch when every other arm of the same conditional (the text libclang skipped, read raw and
tokenized by :func:`tokens`) declares it, only declares it (:func:`arm_inits`), and every such initialiser is a
falsy constant (``false``, ``0``), a debug test by :mod:`.debugswitch`'s rules, or a call of a debug environment
query (below). No declaration in another arm, or any other initialiser (a configuration flag, ``getenv("X")`` of a
variable with no debug word), and it is not. The mirror case, the declaration a release build compiles (the
``#else`` of ``#ifndef NDEBUG``, as when the analysed flags define ``NDEBUG``): a debug switch when its own
initialiser is one of the last two (a debug build's value does not matter: that build's extra work is excluded
anyway). Either way the local must not be written after its declaration (:func:`writes`).

**A debug environment query**: a function without parameters whose every return value is false unless one
environment variable that names a debugging switch is set (:func:`env_query`): a name with a debug word
(``APP_DEBUG``), or ``CUDA_LAUNCH_BLOCKING``, CUDA's documented debugging switch (CUDA C++ Programming Guide,
"Asynchronous Concurrent Execution": "Programmers can globally disable asynchronicity of kernel launches for all
CUDA applications running on a system by setting the CUDA_LAUNCH_BLOCKING environment variable to 1. This feature
is provided for debugging purposes only"): under it every launch already synchronizes, so work done only under it
adds nothing the switch has not already made synchronous. Kept narrow: the body calls ``getenv`` exactly once, with
that literal, and nothing else but string construction and comparison; each ``return`` gives a falsy constant, a
test that the ``getenv`` result is set (``env != nullptr``, ``env``: a ``&&`` conjunct of every ``||``
alternative), or a local whose initialiser and every assignment are such (``static bool result = false; ...
result = env != nullptr && std::string(env) == "1"; ... return result;``). Anything else is no switch.
"""

from __future__ import annotations

import re
from typing import Callable, Optional, Sequence

from . import debugswitch

# CUDA's debugging switch (the CUDA C++ Programming Guide: launches become synchronous; "for debugging purposes only")
CUDA_DEBUG_ENV = frozenset({"CUDA_LAUNCH_BLOCKING"})
_GETENV = frozenset({"getenv", "secure_getenv"})
# calls a debug environment query may make besides its getenv: string construction and comparison ("": a conversion
# libclang leaves unnamed)
_STRING_CALLS = frozenset({"basic_string", "string", "operator==", "operator!=", "strcmp", "strncmp", "strcasecmp",
                           "strncasecmp", "_stricmp", "stricmp", "compare", ""})
_FALSY = frozenset({"false", "0", "0u", "0U", "0L", "nullptr", "NULL"})
_NULLS = frozenset({"nullptr", "NULL", "0", "__null"})
_ASSIGN = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})
_NOT_TYPE = frozenset({"return", "case", "goto", "throw", "else", "do", "co_return", "co_yield", "sizeof", "new",
                       "delete", "typedef", "using", "operator"})

_TOKEN = re.compile(r"""
    (?P<skip>\s+|//[^\n]*|/\*.*?\*/|^[ \t]*\#[^\n]*(?:\\\n[^\n]*)*)
  | (?P<str>(?:u8|u|U|L)?"(?:[^"\\\n]|\\.)*"|(?:u8|u|U|L)?'(?:[^'\\\n]|\\.)*')
  | (?P<num>\.?\d(?:[\w.']|[eEpP][+-])*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op><<=|>>=|->\*|\.\.\.|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=|[^\s])
""", re.S | re.M | re.X)


def tokens(text: str) -> list[str]:
    """A simple tokenization of C++ source text: comments and preprocessor lines dropped, string literals whole."""
    return [m.group(0) for m in _TOKEN.finditer(text) if m.lastgroup != "skip"]


def shown(toks: Sequence[str]) -> str:
    """Tokens joined as a person writes them (``isFoo()``, ``ns::f(a, b)``, ``x != nullptr``)."""
    out = ""
    for i, t in enumerate(toks):
        p = toks[i - 1] if i else ""
        tight = p in ("(", "[", "::", ".", "->", "!", "~") or t in (")", "]", ",", ";", "::", ".", "->") or (
            t in ("(", "[") and (_is_id(p) or p in (")", "]", ">")))
        out += t if not out or tight else " " + t
    return out


def is_debug_env(name: str) -> bool:
    """Whether an environment variable's name names a debugging switch (a debug word, or CUDA_LAUNCH_BLOCKING)."""
    return name in CUDA_DEBUG_ENV or debugswitch.has_debug_word(name)


def _is_id(t: str) -> bool:
    return re.fullmatch(r"[A-Za-z_]\w*", t) is not None


def _until(toks: Sequence[str], i: int, stop: frozenset) -> int:
    """The index of the first top-level token in ``stop`` from ``i`` (``len(toks)`` when none)."""
    depth = 0
    while i < len(toks):
        t = toks[i]
        if depth == 0 and t in stop:
            return i
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return i
        i += 1
    return i


def _declares(toks: Sequence[str], i: int) -> bool:
    """Whether the name at ``toks[i]`` is being declared (a type before it: ``bool v``, ``auto* v``, ``T<X> v``)."""
    if i == 0:
        return False
    p = toks[i - 1]
    if p in (">", "*", "&", "&&"):
        return i >= 2 and (toks[i - 2] not in ("=", "(", ",", "return") or p == ">")
    return _is_id(p) and p not in _NOT_TYPE


def arm_inits(toks: Sequence[str], name: str) -> Optional[list[list[str]]]:
    """The initialisers of the declarations of ``name`` in an arm's tokens (``T name = x;``, ``T name{x};``,
    ``T name(x);``); None when the arm names it otherwise too (an assignment, a use) or declares it without one."""
    out: list[list[str]] = []
    for i, t in enumerate(toks):
        if t != name or (i and toks[i - 1] in (".", "->", "::")):
            continue
        if not _declares(toks, i) or i + 1 >= len(toks):
            return None
        nxt = toks[i + 1]
        if nxt == "=":
            end = _until(toks, i + 2, frozenset({";", ","}))
            out.append(list(toks[i + 2:end]))
        elif nxt in ("{", "("):
            end = _until(toks, i + 2, frozenset())
            if end >= len(toks):
                return None
            out.append(list(toks[i + 2:end]))
        else:
            return None
        if not out[-1]:
            return None
    return out


def writes(toks: Sequence[str], name: str, calls_may_write: bool = True) -> bool:
    """Whether the tokens (of a function) may write ``name`` other than by declaring it: an assignment, ``++``/``--``,
    its address taken, or (``calls_may_write``) handed bare to a call (a reference parameter)."""
    for i, t in enumerate(toks):
        if t != name or (i and toks[i - 1] in (".", "->", "::")):
            continue
        p = toks[i - 1] if i else ""
        n = toks[i + 1] if i + 1 < len(toks) else ""
        if n in _ASSIGN and not _declares(toks, i):
            return True
        if n in ("++", "--") or p in ("++", "--"):
            return True
        if p == "&" and (i < 2 or not (_is_id(toks[i - 2]) or toks[i - 2] in (")", "]"))):
            return True
        if calls_may_write and p in ("(", ",") and n in (")", ","):
            j = _call_open(toks, i)
            if j is not None and j > 0 and (_is_id(toks[j - 1]) or toks[j - 1] in (">", ")")) \
                    and toks[j - 1] not in ("if", "while", "switch", "return", "for"):
                return True
    return False


def _call_open(toks: Sequence[str], i: int) -> Optional[int]:
    """The index of the ``(`` whose argument list holds ``toks[i]``."""
    depth = 0
    for j in range(i - 1, -1, -1):
        t = toks[j]
        if t in (")", "]", "}"):
            depth += 1
        elif t in ("(", "[", "{"):
            if depth == 0:
                return j if t == "(" else None
            depth -= 1
        elif depth == 0 and t == ";":
            return None
    return None


def strip_parens(toks: Sequence[str]) -> list[str]:
    return list(debugswitch.strip_parens(toks))


def call_name(toks: Sequence[str]) -> Optional[str]:
    """The name of a call without arguments, ``f()`` / ``ns::f()`` (no member call), else None."""
    toks = strip_parens(toks)
    if len(toks) < 3 or toks[-2:] != ["(", ")"]:
        return None
    head = toks[:-2]
    if head[:1] == ["::"]:
        head = head[1:]
    if not head or len(head) % 2 == 0:
        return None
    for i, t in enumerate(head):
        if (i % 2 == 0 and not _is_id(t)) or (i % 2 == 1 and t != "::"):
            return None
    return head[-1]


def _getenv_literal(toks: Sequence[str]) -> Optional[str]:
    """The variable of ``[std::]getenv("NAME")``, else None."""
    toks = strip_parens(toks)
    if toks[:2] == ["std", "::"] or toks[:2] == ["::", "getenv"]:
        toks = toks[2:] if toks[0] == "std" else toks[1:]
    if len(toks) == 4 and toks[0] in _GETENV and toks[1] == "(" and toks[3] == ")":
        return debugswitch.literal_text(toks[2])
    return None


def _set_test(toks: Sequence[str], env: Callable[[Sequence[str]], bool]) -> bool:
    """Every ``||`` alternative has a ``&&`` conjunct testing that a getenv result (``env``) is set."""
    toks = strip_parens(toks)
    if not toks:
        return False
    for _op, alt in debugswitch.split_top(toks, frozenset({"||", "or"})):
        ok = False
        for _o, c in debugswitch.split_top(strip_parens(alt), frozenset({"&&", "and"})):
            c = strip_parens(c)
            parts = debugswitch.split_top(c, frozenset({"==", "!=", "<", ">", "<=", ">="}))
            if len(parts) == 1 and env(c):
                ok = True
            elif len(parts) == 2 and parts[1][0] == "!=":
                a, b = strip_parens(parts[0][1]), strip_parens(parts[1][1])
                ok = ok or (env(a) and len(b) == 1 and b[0] in _NULLS) or (env(b) and len(a) == 1 and a[0] in _NULLS)
        if not ok:
            return False
    return True


def env_query(body: Sequence[str], calls: Sequence[str]) -> Optional[str]:
    """The environment variable a function's body (its tokens) queries, when the function is a debug environment
    query (the module doc; ``calls``: the names of every call its body makes, as libclang resolved them); else None."""
    getenvs = [c for c in calls if c in _GETENV]
    if len(getenvs) != 1 or any(c not in _GETENV and c not in _STRING_CALLS for c in calls):
        return None
    var = None
    for i, t in enumerate(body):
        if t in _GETENV:
            if body[i + 1:i + 2] == ["("] and body[i + 3:i + 4] == [")"]:
                var = debugswitch.literal_text(body[i + 2])
            break
    if var is None or not is_debug_env(var):
        return None
    # locals holding the getenv result (``const char* env = getenv("X");``)
    ptrs = set()
    for i, t in enumerate(body):
        if _is_id(t) and i + 1 < len(body) and body[i + 1] == "=" and _declares(body, i):
            end = _until(body, i + 2, frozenset({";", ","}))
            if _getenv_literal(body[i + 2:end]) == var:
                ptrs.add(t)
    if any(writes(body, p, calls_may_write=False) for p in ptrs):  # (its only calls construct and compare strings)
        return None

    def env(toks: Sequence[str]) -> bool:
        toks = strip_parens(toks)
        return (len(toks) == 1 and toks[0] in ptrs) or _getenv_literal(toks) == var

    def value_ok(toks: Sequence[str]) -> bool:
        toks = strip_parens(toks)
        return (len(toks) == 1 and toks[0] in _FALSY) or _set_test(toks, env)

    returns = []
    for i, t in enumerate(body):
        if t == "return":
            end = _until(body, i + 1, frozenset({";"}))
            returns.append(strip_parens(body[i + 1:end]))
    if not returns:
        return None
    for r in returns:
        if value_ok(r):
            continue
        if len(r) != 1 or not _is_id(r[0]) or not _local_values_ok(body, r[0], value_ok):
            return None
    return var


def _local_values_ok(body: Sequence[str], name: str, ok: Callable[[Sequence[str]], bool]) -> bool:
    """Every value ``name`` takes in ``body`` (its declaration's initialiser, each ``name = x;``) is ``ok``, and it
    is written no other way."""
    seen_decl = False
    for i, t in enumerate(body):
        if t != name or (i and body[i - 1] in (".", "->", "::")):
            continue
        n = body[i + 1] if i + 1 < len(body) else ""
        p = body[i - 1] if i else ""
        if _declares(body, i):
            if n != "=":
                return False  # no initialiser (or a braced one): not read
            seen_decl = True
        elif n in _ASSIGN and n != "=":
            return False
        elif n in ("++", "--") or p in ("++", "--") or p == "&":
            return False
        elif n != "=":
            if p in ("(", ",") and n in (")", ","):
                j = _call_open(body, i)
                if j is not None and j > 0 and body[j - 1] not in ("if", "while", "switch", "return", "for"):
                    return False
            continue
        end = _until(body, i + 2, frozenset({";", ","}))
        if not ok(body[i + 2:end]):
            return False
    return seen_decl

