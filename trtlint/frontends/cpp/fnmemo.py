"""The per-function memo of the C++ body walk (issue 36): a unit extracted again after an edit takes the facts of
each function the edit cannot have changed from its last extraction instead of walking its body again.

What the walk of one function reads beyond its own text: the declarations it resolves names through (callees,
variables, types, macros: the unit's text outside function bodies and its headers), the string constants it
follows (variables' initialisers, the same), and the *bodies* of the functions it calls (serialization helpers,
delegated constructors, one-time flags set by a callee, a getter returning a stream member: depth two at most).
So the memo is used only when the last extraction had the same compile arguments, skip set and context, every
project header it included has the same text (the file's, or the open buffer's), and the unit's text changed in
one run of whole lines that is *neutral*: no preprocessor line, quote, block comment or line continuation in it,
its brackets balanced, and either nothing but whitespace and ``//`` comments, or inside the body of one function
``G`` (after its opening brace, before its closing one). Then a function ``F`` whose text is unchanged gets its last
facts back unless ``G`` is ``F``, or ``F`` may read ``G``'s body: ``G``'s name is among the identifiers of ``F`` or of
the unit's functions those identifiers name, transitively (a constructor, destructor or operator ``G``, which
can be called without being named, makes every function walk again); a macro a function uses counts with the
identifiers of its definition.

Lines inserted or removed above a function move it: its facts are kept relative to nothing but rebased: every
:class:`Span` in the unit after the edited lines moves by the lines' difference, a ``SerialOp.loop_at`` offset by
the bytes', ``MethodDetail.phase_ranges``, ``CppFunction.member_writes`` and ``Call.fallthrough.line`` by the
lines'; a fact that points *into* the edited lines, or a moved function's name spelled with a position (a lambda's ``(lambda at f:L:C)``, a local's USR offset), is walked again.
The facts equal a from-scratch extraction's (``tests/test_fnmemo.py`` compares them after edits inside and above
functions). The memo is kept per process (the editor's extraction worker: the last 32 units) and, in a run with a
cache, in the unit's fact-cache entry (:data:`trtlint.frontends.MEMO_LOAD`, ``EntryWriter.put``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
from collections import OrderedDict
from typing import Any, Optional

from trtlint.base.facts import Call, CppFunction, MethodDetail, SerialOp, Span
from . import base

MAX_UNITS = 32
_MEMO: "OrderedDict[str, UnitMemo]" = OrderedDict()
# counters for this process (the tests and bench read them)
STATS = {"reused": 0, "walked": 0}

_BAD = (b"#", b'"', b"'", b"\\", b"/*", b"*/", b"<%", b"%>", b"%:", b"??")
_LINE_COMMENT = re.compile(rb"//[^\n]*")
_WORD = re.compile(rb"[A-Za-z_]\w*")
# a name spelled with a position: clang's unnamed entities and the USR of an entity local to a file
_FRAGILE = re.compile(r"\((?:lambda|unnamed|anonymous) |\.\w+@\d")
_PAIRS = {ord("("): (0, 1), ord(")"): (0, -1), ord("["): (1, 1), ord("]"): (1, -1), ord("{"): (2, 1), ord("}"): (2, -1)}


class _Unusable(Exception):
    pass


def _balanced(b: bytes) -> bool:
    depth = [0, 0, 0]
    for ch in b:
        p = _PAIRS.get(ch)
        if p is not None:
            depth[p[0]] += p[1]
            if depth[p[0]] < 0:
                return False
    return depth == [0, 0, 0]


def context_key(args: list, src: Any, ctx: Any, kind: str) -> str:
    """What every function's walk depends on besides the unit's and its headers' texts."""
    return hashlib.sha1(repr((tuple(args), src.rel, tuple(src.skip), tuple(src.flags), kind, ctx)).encode()).hexdigest()


def _stamp(path: str, unsaved: dict[str, str], read: Any) -> str:
    """A digest of the header's text as libclang read it: the open buffer's, else the file's (a ``stat`` could miss a
    rewrite of the same size within the file system's timestamp granularity)."""
    t = unsaved.get(path)
    data = t.encode("utf-8", "surrogateescape") if t is not None else read(path)
    return hashlib.sha1(data).hexdigest()


def _unsaved() -> dict[str, str]:
    from .. import UNSAVED

    out: dict[str, str] = {}
    for p, t in UNSAVED.items():
        out[p] = t
        out[os.path.realpath(p)] = t
    return out


def head_stamps(ex: Any, includes: Any) -> tuple:
    unsaved = _unsaved()
    return tuple((rel, _stamp(os.path.join(ex.root, rel), unsaved, ex.file_bytes)) for rel in sorted(includes))


class UnitMemo:
    """The facts of one unit's last extraction and where each walked function's part of them is: ``slots`` of
    (file, start offset, end offset, body start, name, called unnamed, index in ``functions``, index in
    ``lifecycle`` or -1, registrations from, to, lookups from, to)."""

    def __init__(self, key: str, text: bytes, heads: tuple, ff: Any, slots: tuple) -> None:
        self.key, self.text, self.heads, self.ff, self.slots = key, text, heads, ff, slots
        self.kept: Optional[dict] = None  # the headers' part for a later kept walk (kept.stored; the run's cache only)

    def to_dict(self) -> dict:
        d = {"key": self.key, "text": self.text, "heads": self.heads, "slots": self.slots}
        if self.kept is not None:
            d["kept"] = self.kept
        return d

    @classmethod
    def from_dict(cls, d: Any, ff: Any) -> Optional["UnitMemo"]:
        try:
            m = cls(d["key"], d["text"], d["heads"], ff, d["slots"])
            if not (isinstance(m.key, str) and isinstance(m.text, bytes) and isinstance(m.slots, tuple)):
                return None
            n, nl = len(ff.functions), len(ff.lifecycle)
            for s in m.slots:  # (a cache a pull request can plant: anything else is a miss)
                if (type(s) is not tuple or len(s) != 12 or type(s[0]) is not str or type(s[4]) is not str
                        or type(s[5]) is not bool or any(type(s[i]) is not int for i in (1, 2, 3, 6, 7, 8, 9, 10, 11))
                        or not (0 <= s[6] < n) or not (-1 <= s[7] < nl)):
                    return None
            if not isinstance(m.heads, tuple):
                return None
            m.kept = d.get("kept") if isinstance(d.get("kept"), dict) else None
            return m
        except Exception:  # noqa: BLE001 - a corrupt memo is a miss
            return None


def remember(rel: str, memo: UnitMemo) -> None:
    with base.lock:
        _MEMO[rel] = memo
        _MEMO.move_to_end(rel)
        while len(_MEMO) > MAX_UNITS:
            _MEMO.popitem(last=False)


def forget() -> None:
    with base.lock:
        _MEMO.clear()


# the memo an extraction read from the cache for the headers' part (unit.py, through ``stored``), handed once to the same
# extraction's ``begin``: each extraction reads the entry afresh, so a worker that lives on never sees an old one
_LOADED: list = [None, None]


def _find(rel: str, kind: str) -> Optional[UnitMemo]:
    m = _MEMO.get(rel)
    if m is not None:
        return m
    from .. import MEMO_LOAD

    if MEMO_LOAD is None:
        return None
    if _LOADED[0] == (rel, kind):
        m = _LOADED[1]
        _LOADED[:] = [None, None]
        return m
    try:
        got = MEMO_LOAD(rel, kind)
    except Exception:  # noqa: BLE001 - a cache that cannot be read is a miss
        got = None
    return UnitMemo.from_dict(got[1], got[0]) if got is not None else None


def stored(rel: str, kind: str) -> Optional[UnitMemo]:
    """The unit's memo read from the run's cache now (None outside a pool worker of a run with a cache); the same
    extraction's :func:`begin` takes it without reading the entry again."""
    from .. import MEMO_OUT

    _LOADED[:] = [None, None]
    if MEMO_OUT is None:
        return None
    m = _find(rel, kind)
    if _MEMO.get(rel) is None:
        _LOADED[:] = [(rel, kind), m]
    return m


class _Diff:
    """Where the new text of the unit differs from the memo's: one run of whole lines."""

    def __init__(self, old: bytes, new: bytes) -> None:
        ol, nl = old.splitlines(keepends=True), new.splitlines(keepends=True)
        n = min(len(ol), len(nl))
        p = 0
        while p < n and ol[p] == nl[p]:
            p += 1
        s = 0
        while s < n - p and ol[-1 - s] == nl[-1 - s]:
            s += 1
        self.p = p  # lines 1..p unchanged
        self.o_end = len(ol) - s  # old lines p+1..o_end replaced
        self.dl = len(nl) - len(ol)
        self.rs = sum(map(len, ol[:p]))  # byte offset where the edited lines start (old and new)
        self.old_chunk = b"".join(ol[p:len(ol) - s])
        self.new_chunk = b"".join(nl[p:len(nl) - s])
        self.re_old = self.rs + len(self.old_chunk)
        self.re_new = self.rs + len(self.new_chunk)
        self.db = len(new) - len(old)
        self.prev_line = ol[p - 1] if p > 0 else b""

    def neutral(self) -> Optional[str]:
        """"trivia" (whitespace and // comments only), "body" (to be placed in one function body), or None."""
        for side in (self.old_chunk, self.new_chunk):
            if any(t in side for t in _BAD):
                return None
        if self.prev_line.rstrip().endswith(b"\\"):
            return None
        a, b = _LINE_COMMENT.sub(b"", self.old_chunk), _LINE_COMMENT.sub(b"", self.new_chunk)
        if not (a.strip() or b.strip()):
            return "trivia"
        if not (_balanced(a) and _balanced(b)):
            return None
        return "body"

    def line(self, n: int) -> int:
        if n <= self.p:
            return n
        if n > self.o_end:
            return n + self.dl
        raise _Unusable

    def offset(self, x: int) -> int:
        if x < self.rs:
            return x
        if x >= self.re_old:
            return x + self.db
        raise _Unusable


class Active:
    """The memo of a unit being extracted again (made by :func:`begin`; asked by ``Extractor.visit_function``)."""

    def __init__(self, memo: UnitMemo, diff: Optional[_Diff], main: str, rel: str, g: Optional[tuple]) -> None:
        self.memo, self.diff, self.main, self.rel, self.g = memo, diff, main, rel, g
        self.new_text: bytes = b""
        self.by_pos: dict[tuple, Optional[tuple]] = {}
        for s in memo.slots:
            k = (s[0], s[1], s[2])
            self.by_pos[k] = None if k in self.by_pos else s  # two at one place: neither is taken
        self._names: Optional[dict[str, list]] = None
        self._ids: dict[tuple, set] = {}
        self._fields: dict[type, tuple[str, ...]] = {}
        self._mids: dict[str, set] = {}
        self.file_bytes: Any = None
        self.text_of: Any = None
        self.macros: Optional[dict] = None  # the unit's macro definitions so far (name -> cursor)

    # -- which functions may read G's body --

    def _text_of(self, s: tuple) -> bytes:
        if s[0] == self.main:
            return self.memo.text[s[1]:s[2]]
        return self.file_bytes(s[0])[s[1]:s[2]] if self.file_bytes is not None else b""

    def _idents(self, s: tuple) -> set:
        k = (s[0], s[1], s[2])
        got = self._ids.get(k)
        if got is None:
            got = self._ids[k] = {w.decode() for w in _WORD.findall(self._text_of(s))}
        return got

    def _reads_g(self, s: tuple) -> bool:
        g = self.g
        if g is None:
            return False
        if self._names is None:
            self._names = {}
            for x in self.memo.slots:
                self._names.setdefault(x[4], []).append(x)
        gname = g[4]
        macros = self.macros
        seen: set[str] = set()
        todo: list = [s]
        while todo:
            x = todo.pop()
            ids = self._idents(x) if isinstance(x, tuple) else self._macro_idents(x)
            if gname in ids:
                return True
            for w in ids:
                if w in seen:
                    continue
                if w in self._names:
                    seen.add(w)
                    todo.extend(self._names[w])
                if macros is not None and w in macros:  # a macro the function uses: what its body names
                    seen.add(w)
                    todo.append(w)
        return False

    def _macro_idents(self, name: str) -> set:
        got = self._mids.get(name)
        if got is None:
            d = self.macros.get(name) if self.macros is not None else None
            text = self.text_of(d).encode("utf-8", "surrogateescape") if d is not None and self.text_of else b""
            got = self._mids[name] = {w.decode() for w in _WORD.findall(text)} - {name}
        return got

    # -- reuse --

    def reuse(self, f: str, o1: int, o2: int) -> Optional[tuple]:
        """(function, lifecycle detail or None, registrations, lookups) of the function at ``f``[o1:o2) from the
        memo, rebased; None: walk it."""
        d = self.diff
        moved = False
        if f == self.main and d is not None:
            if o2 <= d.rs:
                old1, old2 = o1, o2
            elif o1 >= d.re_new:
                old1, old2 = o1 - d.db, o2 - d.db
                moved = d.db != 0 or d.dl != 0
            else:
                return None
        else:
            old1, old2 = o1, o2
        s = self.by_pos.get((f, old1, old2))
        if s is None:
            return None
        if f == self.main and self.memo.text[old1:old2] != self.new_text[o1:o2]:
            return None
        if self.g is not None and (s is self.g or self._reads_g(s)):
            return None
        ff = self.memo.ff
        fn = ff.functions[s[6]]
        md = ff.lifecycle[s[7]] if s[7] >= 0 else None
        regs = tuple(ff.registrations[s[8]:s[9]])
        lks = tuple(ff.lookups[s[10]:s[11]])
        if d is None:
            return fn, md, regs, lks
        try:
            return self._rebase((fn, md, regs, lks), moved)
        except _Unusable:
            return None

    def _rebase(self, obj: Any, fragile: bool) -> Any:
        d = self.diff
        rel = self.rel
        fields = self._fields
        # values that are returned as they are (str only when the function did not move: its names are then kept)
        plain = (int, bool, float, type(None)) if fragile else (str, int, bool, float, type(None))

        def walk(o: Any) -> Any:
            t = type(o)
            if t in plain:
                return o
            if t is Span:
                if o.path != rel:
                    return o
                l1, l2 = d.line(o.line), d.line(o.end_line)
                if l1 == o.line and l2 == o.end_line:
                    return o
                if (l1 - o.line) != (l2 - o.end_line):
                    raise _Unusable  # it spans the edited lines
                return Span(o.path, l1, o.col, l2, o.end_col)
            if t is tuple:  # (a new tuple only from the first element that changed)
                for i, x in enumerate(o):
                    if type(x) in plain:
                        continue
                    nx = walk(x)
                    if nx is not x:
                        return tuple([*o[:i], nx, *(walk(y) for y in o[i + 1:])])
                return o
            if t is str:
                if ("(" in o or "@" in o) and _FRAGILE.search(o):  # (fragile: strings are plain otherwise)
                    raise _Unusable
                return o
            names = fields.get(t)
            if names is None:
                if not dataclasses.is_dataclass(o):
                    raise _Unusable
                names = fields[t] = tuple(x.name for x in dataclasses.fields(o))
            changes = {}
            for name in names:
                v = getattr(o, name)
                nv = walk(v)
                if nv is not v:
                    changes[name] = nv
            if t is SerialOp and o.loop_at and o.span.path == rel:
                nl = d.offset(o.loop_at)
                if nl != o.loop_at:
                    changes["loop_at"] = nl
            if t is CppFunction and o.member_writes and o.span.path == rel:
                mw = tuple((m, d.line(n)) for m, n in o.member_writes)
                if mw != o.member_writes:
                    changes["member_writes"] = mw
            if t is Call and o.fallthrough is not None and o.span.path == rel:
                fl = d.line(o.fallthrough.line)
                if fl != o.fallthrough.line:
                    changes["fallthrough"] = dataclasses.replace(changes.get("fallthrough", o.fallthrough), line=fl)
            if t is MethodDetail and o.phase_ranges and o.span.path == rel:
                pr = tuple((ph, d.line(a), d.line(b)) for ph, a, b in o.phase_ranges)
                if pr != o.phase_ranges:
                    changes["phase_ranges"] = pr
            return dataclasses.replace(o, **changes) if changes else o

        return walk(obj)


def begin(ex: Any, key: str) -> Optional[Active]:
    """The memo to use for this extraction of ``ex``'s unit, or None (none, another context, a header changed, an
    edit that is not neutral)."""
    memo = _find(ex.src.rel, ex.src.kind)
    if memo is None or memo.key != key:
        return None
    if head_stamps(ex, [h for h, _s in memo.heads]) != memo.heads:
        return None
    new = ex.main_bytes
    g = None
    if new == memo.text:
        diff = None
    else:
        if b'R"' in new or b'R"' in memo.text:
            return None
        diff = _Diff(memo.text, new)
        how = diff.neutral()
        if how is None:
            return None
        if how == "body":
            for s in memo.slots:
                if s[0] == ex.main and s[3] < diff.rs and diff.re_old <= s[2] - 1:
                    if g is None or s[3] > g[3]:
                        g = s
            if g is None or g[5]:
                return None
    act = Active(memo, diff, ex.main, ex.src.rel, g)
    act.new_text = new
    act.file_bytes = ex.file_bytes
    act.text_of = ex.text_of
    act.macros = ex._macro_defs
    return act


def called_unnamed(fn: Any, K: Any, name: str) -> bool:
    """A function that can be called without its name being spelled (constructors, destructors, operators,
    conversions)."""
    return fn.kind in (K.CONSTRUCTOR, K.DESTRUCTOR, K.CONVERSION_FUNCTION) or name.startswith(("operator", "~"))


def finish(ex: Any, key: str, ff: Any) -> None:
    """Keep this extraction's facts as the unit's memo (in this process; and for the cache's entry)."""
    slots = tuple(ex.memo_slots)
    memo = UnitMemo(key, ex.main_bytes, head_stamps(ex, ff.includes), ff, slots)
    memo.kept = getattr(ex, "kept_record", None)
    from .. import MEMO_OUT

    if MEMO_OUT is not None:  # a pool worker of a run: the memo goes in the unit's cache entry (each unit once a run)
        MEMO_OUT[ex.src.rel] = memo.to_dict()
    else:
        remember(ex.src.rel, memo)
