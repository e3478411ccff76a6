"""Whether a one-time guard's block sets what its condition tests (called from :class:`.body.BodyWalker`).

``if (!mX) { ... }`` and ``if (mX) return; ...`` are one-time initialisation only when the guarded statements set
``mX`` (or a member reached through it): then the block runs once, and its calls are not per-call work. A test
of a flag the block never sets (a configuration switch, ``if (!mUseCache) { cudaMalloc(...); }``) guards work
that runs on every call. The statements set the flag when their text does (assigned, incremented, its address
taken: ``cudaMalloc(&mX, n)``, a mutating method called on it: ``mX.reset(...)``, handed to a call as an output
parameter), or a function they call does, whose definition the unit has (two calls deep). A function whose
definition is not in the unit may set the flag (not known): counted as setting when it is a method of the
function's own class, or a free function and the flag is not a data member (a global or static it can reach).
"""

from __future__ import annotations

import re
from typing import Optional

from .base import PRELUDE_DIR, Cursor, Unit, preorder

_MUTATORS = (r"reset|emplace\w*|resize|push_back|assign|insert|swap|store|exchange|init\w*|create\w*|alloc\w*|"
             r"set\w*|load\w*|build\w*|open|fill")
_PATH = r"(?:\s*(?:\.|->)\s*\w+|\s*\[[^\]]*\])*"
_MEMBER = re.compile(r"m[A-Z_]|m_")  # a data member by the usual naming (a free function cannot set one)


def sets_text(text: str, flag: str) -> bool:
    """Whether source ``text`` sets ``flag`` (a name; members reached through it count)."""
    if flag not in text:
        return False
    f = r"(?:this\s*->\s*)?\b" + re.escape(flag) + r"\b"
    return bool(
        re.search(f + _PATH + r"\s*(?:[-+*/|&^]?=(?!=)|\+\+|--)", text)
        or re.search(r"(?:\+\+|--|&)\s*" + f, text)
        or re.search(f + r"\s*(?:\.|->)\s*(?:" + _MUTATORS + r")\s*\(", text)
        or re.search(r"[(,]\s*(?:std::move\s*\(\s*)?" + f + r"\s*[,)]", text)
    )


def sets_any(ex: Unit, fn: Cursor, stmts: list[Cursor], flags: list[str], depth: int = 0,
             seen: Optional[set] = None) -> bool:
    """Whether ``stmts`` (cursors of function ``fn``'s body, or a callee's definition) set one of ``flags``."""
    K = ex.K
    text = "\n".join(ex.text_of(c) for c in stmts)
    if any(sets_text(text, f) for f in flags):
        return True
    seen = set() if seen is None else seen
    for st in stmts:
        for sub in preorder(st):
            if sub.kind != K.CALL_EXPR:
                continue
            ref = sub.referenced
            if ref is None or ref.kind not in (K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE, K.CONSTRUCTOR):
                continue
            try:
                d = ref.get_definition()
            except Exception:  # noqa: BLE001 - a declaration libclang cannot follow
                d = None
            if d is None:
                if ref.kind == K.CXX_METHOD and _same_class(ref, fn):
                    return True  # a method of the class, defined elsewhere, may set the member
                if (ref.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE) and any(not _MEMBER.match(f) for f in flags)
                        and _project_decl(ex, ref)):
                    return True  # a project function defined elsewhere (`initPlugins()`) may set a global flag
                continue
            if d.hash in seen or depth >= 2:
                continue
            seen.add(d.hash)
            if sets_any(ex, fn, [d], flags, depth + 1, seen):
                return True
    return False


def _project_decl(ex: Unit, d: Cursor) -> bool:
    """Declared in a project file (not a system, SDK or trtlint stand-in header): the project's own function."""
    try:
        f = d.location.file
        return f is not None and ex.rel_of(f.name) is not None and not f.name.startswith(str(PRELUDE_DIR))
    except Exception:  # noqa: BLE001
        return False


def _same_class(method: Cursor, fn: Cursor) -> bool:
    try:
        a, b = method.semantic_parent, fn.semantic_parent
        return a is not None and b is not None and bool(a.get_usr()) and a.get_usr() == b.get_usr()
    except Exception:  # noqa: BLE001
        return False
