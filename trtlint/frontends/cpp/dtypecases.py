"""The flow walk's part for a data-type switch's named cases that only fail (its own module to keep
:mod:`.flow` short): ``case DataType::kBF16: case DataType::kINT64: PLUGIN_FAIL("Unsupported data type");`` lists
the types the dispatch does not handle, as a ``default:`` does for all of them: a branch for no accepted type
(``facts.UNSUPPORTED_DTYPE``), since TensorRT hands a plugin only the types its supportsFormatCombination accepted.
A case group counts when its statements, a trailing ``break`` aside, are one failure and nothing else: a throw, an
exit or abort, or a call whose callee's name says it fails (``reportAssertion``, ``throwPluginError``,
``assertFailed``: the failure macros' expansions). A group that does any other work is the dispatch's own branch."""

from __future__ import annotations

import re
from typing import Any

from .base import Cursor, children

_FAILING_CALLEE = re.compile(r"(?i)assert|fail|error|abort|^exit$|^_Exit$|^quick_exit$|^terminate$")


def failing_case_ranges(K: Any, extent_info, body: Cursor) -> list[tuple[int, int]]:
    """(start, end) offsets of each case group of the switch body ``body`` whose statements only fail, from its
    first label to the end of its last statement. ``extent_info``: the unit's ``extent_info`` (offsets at 3 and 6)."""
    groups: list[list[Cursor]] = []  # per group: [first label, statements...]
    for st in children(body):
        inner, label = st, None
        while inner.kind in (K.CASE_STMT, K.DEFAULT_STMT):
            if label is None:
                label = st
            if inner.kind == K.DEFAULT_STMT:
                label = None  # (a default's group is the default's: handled by the walk already)
                break
            sub = children(inner)
            if len(sub) < 2:
                inner = None
                break
            inner = sub[-1]
        if st.kind in (K.CASE_STMT, K.DEFAULT_STMT):
            groups.append([label] + ([inner] if inner is not None and label is not None else []))
        elif groups and groups[-1][0] is not None:
            groups[-1].append(st)
    out = []
    for g in groups:
        first, stmts = g[0], [s for s in g[1:] if s.kind != K.BREAK_STMT]
        if first is None or len(stmts) != 1 or not _fails_only(K, stmts[0]):
            continue
        out.append((extent_info(first)[3], extent_info(g[-1])[6]))
    return out


def _fails_only(K: Any, st: Cursor) -> bool:
    while st.kind in (K.COMPOUND_STMT, K.DO_STMT):
        if st.kind == K.DO_STMT:  # a statement macro's `do { ...; } while (0)`
            sub = children(st)
            if len(sub) != 2:
                return False
            st = sub[0]
            continue
        sub = [s for s in children(st) if s.kind != K.BREAK_STMT]
        if len(sub) != 1:
            return False
        st = sub[0]
    for _ in range(3):
        if st.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR):
            sub = children(st)
            if len(sub) != 1:
                return False
            st = sub[0]
    if st.kind == K.CXX_THROW_EXPR:
        return True
    if st.kind == K.CALL_EXPR:
        return bool(_FAILING_CALLEE.search(st.spelling or ""))
    return False
