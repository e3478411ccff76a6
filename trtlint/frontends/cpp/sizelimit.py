"""The C++ frontend's flow walk, its part for a size checked against a limit the caller passes (``Call.over_param``,
``Call.arg_params``; called from :mod:`.flow`, its own module to keep that one short).

* :func:`over_param` (``Call.over_param``): a throw or process exit that ends the then-branch of an ``if`` whose
  condition is one comparison saying that something exceeds an integer parameter of the function (``if (size >
  workspace_size) throw ...;``, ``left < n``, ``>=``, ``<=``), the parameter neither written nor handed to any call
  in the body before the ``if`` (its text: a write after the test is the carve itself, ``workspace_size -= size``);
* :func:`arg_params` (``Call.arg_params``): per argument, the index of the caller's own parameter it is, as a plain
  name (under parentheses and implicit conversions), when the body writes that parameter nowhere (``=``, a compound
  assignment, ``++``/``--``, its address taken) except inside an earlier branch that ends in a ``return`` (a
  cub-style wrapper's size query, ``if (!workspace) { workspace_size = ...; return workspace_size; }``), else -1.
  nor handed (as an argument, to a call resolved or not) to a call of another callee before it or in a loop around it.

The rule side (``checks/plugin/_escape.own_request``) joins them hop by hop from ``enqueue``. Everything is read from
the source text and cursors of one function; anything not understood gives nothing (no fact: the finding stays).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Optional

from trtlint.base.facts import Call

from .base import Cursor, branch_fails, children, look_through

FlowWalker = Any  # flow.FlowWalker (not imported: flow imports this module)

_RELATIONAL = frozenset({">", ">=", "<", "<="})
_JUMPS = re.compile(r"\b(?:break|continue|goto)\b")


def _integral(w: FlowWalker, d: Cursor) -> bool:
    """An integer parameter, or a reference to one (``size_t& left``)."""
    ci = w.ex.ci
    try:
        t = d.type.get_canonical()
        if t.kind in (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE):
            t = t.get_pointee().get_canonical()
        return t.kind in (ci.TypeKind.UINT, ci.TypeKind.ULONG, ci.TypeKind.ULONGLONG, ci.TypeKind.USHORT,
                          ci.TypeKind.INT, ci.TypeKind.LONG, ci.TypeKind.LONGLONG, ci.TypeKind.SHORT)
    except Exception:  # noqa: BLE001 - an unresolved type
        return False


def _param(w: FlowWalker, c: Cursor) -> Optional[tuple[int, Cursor]]:
    """``c`` is a plain use of the function's parameter: (its index, its declaration)."""
    e = look_through(w.K, c)
    if e.kind != w.K.DECL_REF_EXPR:
        return None
    d = e.referenced
    if d is None or d.kind != w.K.PARM_DECL:
        return None
    j = w.params.get(d.hash)
    return None if j is None else (j, d)


def _operator(w: FlowWalker, kids: list) -> Optional[str]:
    a, b = w.ex.extent_info(kids[0]), w.ex.extent_info(kids[1])
    if a[0] is None or a[0] != b[0] or b[3] < a[6]:
        return None
    return w.ex.file_bytes(a[0])[a[6]:b[3]].decode("utf-8", "replace").strip()


def _body(w: FlowWalker) -> Optional[Cursor]:
    kids = children(w.fn)
    return kids[-1] if kids and kids[-1].kind == w.K.COMPOUND_STMT else None


@lru_cache(maxsize=256)
def _writes(name: str) -> re.Pattern:
    n = re.escape(name)
    return re.compile(r"(?<![\w.>])" + n + r"\s*(?:[-+*/%|&^]?=(?!=)|<<=|>>=|\+\+|--)|(?:\+\+|--|&)\s*" + n + r"\b")


@lru_cache(maxsize=256)
def _handed(name: str) -> re.Pattern:
    return re.compile(r"[(,]\s*" + re.escape(name) + r"\s*[,)]")


def over_param(w: FlowWalker, if_stmt: Cursor, cond: Cursor, then: Cursor, last: Cursor, ends: Optional[str]) -> None:
    """``if (size > limit) { ...; throw ...; }`` (or an exit; ``ends``: flow.ends_process of ``last``) on an integer
    parameter ``limit`` neither written nor handed to a call before the ``if``: ``FlowState.over_ranges``."""
    if not branch_fails(w, if_stmt, then, last, ends):
        return
    K = w.K
    fi, ti = w.ex.extent_info(if_stmt), w.ex.extent_info(then)
    c = look_through(K, cond)
    if c.kind != K.BINARY_OPERATOR:
        return
    kids = children(c)
    if len(kids) != 2:
        return
    op = _operator(w, kids)
    if op not in _RELATIONAL:
        return
    got = _param(w, kids[1]) if op in (">", ">=") else _param(w, kids[0])
    if got is None or not _integral(w, got[1]):
        return
    j, d = got
    body = _body(w)
    if body is None:
        return
    bi = w.ex.extent_info(body)
    if bi[0] is None or bi[0] != fi[0] or not bi[3] <= fi[3] <= bi[6]:
        return
    data = w.ex.file_bytes(bi[0])
    before = data[bi[3]:fi[3]].decode("utf-8", "replace")
    # a loop around the test runs what follows it before the next test: a call handed it there may have changed it
    # (a write there is the carve itself: `left -= n` after the test)
    loops = [data[s:e].decode("utf-8", "replace") for s, e in w.flow.loop_ranges if s <= fi[3] < e]
    name = d.spelling or ""
    if not name or _writes(name).search(before) or any(_handed(name).search(t) for t in [before, *loops]):
        return
    if ti[6] > ti[3]:
        w.flow.over_ranges.append((ti[3], ti[6], j))


def returning_branch(w: FlowWalker, then: Cursor, other: Optional[Cursor], last: Cursor) -> None:
    """An ``if`` with no ``else`` whose then-branch ends in a ``return`` and jumps nowhere else: nothing written in it
    reaches the code after the ``if`` (``FlowState.return_ranges``)."""
    K = w.K
    if other is not None or last.kind != K.RETURN_STMT:
        return
    ti = w.ex.extent_info(then)
    if ti[0] is None or ti[6] <= ti[3]:
        return
    text = w.ex.file_bytes(ti[0])[ti[3]:ti[6]].decode("utf-8", "replace")
    if not _JUMPS.search(text):
        w.flow.return_ranges.append((ti[3], ti[6]))


def candidates(w: FlowWalker, args: list) -> tuple[int, ...]:
    """Per argument, the index of the function's parameter it is as a plain name, else -1 (trailing -1 dropped);
    :func:`arg_params` then drops those the body writes."""
    if not w.params:
        return ()
    out = []
    for a in args:
        got = _param(w, a)
        out.append(got[0] if got is not None and (got[1].spelling or "") else -1)
    while out and out[-1] < 0:
        out.pop()
    return tuple(out)


def _plain(text: str) -> str:
    t = "".join(text.split())
    while t.startswith("(") and t.endswith(")"):
        t = t[1:-1]
    return t


def arg_params(w: FlowWalker, off: int, call: Call, calls: list) -> tuple[int, ...]:
    """``call.arg_params`` (:func:`candidates`) for the call at offset ``off``, without a parameter the body writes
    outside the returning branches that end before the call, or hands (as an argument written as its plain name, to
    a call resolved or not) to a call of another callee before this one or in a loop around it (a reference parameter
    may change it; the same callee's earlier calls are the carves taking their share). What does not depend on the
    call (the body's extent, the parameters' names, a name's writes in the body with the same returning branches
    blanked) is worked out once per function (``FlowState.size_memo``)."""
    memo = w.flow.size_memo
    if "body" not in memo:
        body = _body(w)
        memo["body"] = w.ex.extent_info(body) if body is not None else None
        names = {}
        for ch in children(w.fn):
            if ch.kind == w.K.PARM_DECL:
                j = w.params.get(ch.hash)
                if j is not None:
                    names[j] = ch.spelling or ""
        memo["names"] = names
    bi, names = memo["body"], memo["names"]
    if bi is None or bi[0] is None or not bi[3] <= off <= bi[6]:
        return ()
    blanked = tuple((s, e) for s, e in w.flow.return_ranges if bi[3] <= s and e < off and e <= bi[6])
    loops = [(s, e) for s, e in w.flow.loop_ranges if s <= off < e]
    returned = [(s, e) for s, e in w.flow.return_ranges if e < off]

    def written(name: str) -> bool:
        key = ("written", name, blanked)
        got = memo.get(key)
        if got is None:
            tkey = ("text", blanked)
            text = memo.get(tkey)
            if text is None:
                data = bytearray(w.ex.file_bytes(bi[0])[bi[3]:bi[6]])
                for s, e in blanked:
                    data[s - bi[3]:e - bi[3]] = b" " * (e - s)
                text = memo[tkey] = data.decode("utf-8", "replace")
            got = memo[key] = bool(_writes(name).search(text))
        return got

    def handed(name: str) -> bool:
        for o, other in calls:
            if other is call or other.callee == call.callee or not (o < off or any(s <= o < e for s, e in loops)):
                continue
            if any(s <= o < e for s, e in returned):
                continue  # in a branch that returns before this call
            if any(_plain(a) == name for a in other.args):
                return True
        return False

    out = [j if j >= 0 and names.get(j) and not written(names[j]) and not handed(names[j]) else -1
           for j in call.arg_params]
    while out and out[-1] < 0:
        out.pop()
    return tuple(out)
