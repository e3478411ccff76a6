"""The C++ frontend's flow walk, its part for an index's bounds check (``facts.INDEX_BOUNDS``; called from
:mod:`.flow`, its own module to keep that one short)."""

from __future__ import annotations

import re
from typing import Any, Optional

from trtlint.base.facts import INDEX_BOUNDS

from .base import Cursor, children

FlowWalker = Any  # flow.FlowWalker (not imported: flow imports this module)


# one side of a bounds test: `idx < 0`, `idx >= n`, `n <= idx` (a name, a relational operator, anything)
_BOUND_LEFT = re.compile(r"\(?\s*(\w+)\s*(?:<=?|>=?)\s*[^<>=|&]+?\)?")
_BOUND_RIGHT = re.compile(r"\(?\s*[^<>=|&]+?\s*(?:<=?|>=?)\s*(\w+)\s*\)?")
_INTEGRAL = re.compile(r"(?:(?:const|unsigned|signed|std::)\s*)*(?:int|long|short|size_t|ssize_t|ptrdiff_t|u?int(?:8|16|32|64)_t|"
                       r"long long|unsigned)(?:\s+(?:int|long))*(?:\s*const)?")


_OUT_OF_RANGE = re.compile(r"\s*throw\s+(?:::)?(?:std::)?out_of_range\b")


def index_bounds(w: FlowWalker, cond: Cursor, then: Cursor, last: Cursor) -> None:
    """``if (idx < 0 || idx >= size) { throw std::out_of_range(...); }`` on an integer parameter ``idx`` of the
    function: a bounds check of an index (``facts.INDEX_BOUNDS``), the standard's own meaning of out_of_range. Every
    test of the condition bounds the same parameter (``||`` of relational comparisons), and the branch ends in a
    throw of std::out_of_range (a limit on a count that throws something else is a runtime check, not this)."""
    K = w.K
    if last.kind not in (K.UNEXPOSED_EXPR, K.CXX_THROW_EXPR) or not _OUT_OF_RANGE.match(w.ex.text_of(last)):
        return  # (the text first: most branches end in something else, and it costs no child visit)
    if last.kind == K.UNEXPOSED_EXPR:  # the statement wraps the throw expression
        sub = children(last)
        last = sub[0] if len(sub) == 1 else last
    if last.kind != K.CXX_THROW_EXPR:
        return
    text = " ".join(w.ex.text_of(cond).split())
    names: Optional[set] = None
    for part in text.split("||"):
        part = part.strip()
        got = {g.group(1) for g in (_BOUND_LEFT.fullmatch(part), _BOUND_RIGHT.fullmatch(part)) if g is not None}
        names = got if names is None else names & got
        if not names:
            return
    ints = set()
    for ch in children(w.fn):
        if ch.kind != K.PARM_DECL:
            continue
        try:
            typ = ch.type.get_canonical().spelling or ""
        except Exception:  # noqa: BLE001 - an unresolved type
            typ = ""
        if _INTEGRAL.fullmatch(typ.strip()):
            ints.add(ch.spelling)
    if names & ints:
        _f, _l1, _c1, o1, _l2, _c2, o2 = w.ex.extent_info(then)
        if o2 > o1:
            w.flow.error_ranges.append((o1, o2, INDEX_BOUNDS))
