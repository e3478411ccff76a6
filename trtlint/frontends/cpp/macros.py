"""Macro uses in the C++ frontend's declaration walk (a mixin of :class:`.decls.Extractor`): each function's
macro calls (arguments, where a project file defines the macro, the callees the macros it expands spell, whether
the C library's ``assert`` is compiled out, the kernel launches written in a macro's body) attached to the
functions being built (:class:`FnBuild`) once the unit is walked.

Only the modules of this package touch libclang cursors; what leaves is plain facts.
"""

from __future__ import annotations

from typing import Optional

import dataclasses

from trtlint.base.facts import DEBUG_ONLY, Call, CppFunction, Span
from . import flow, macrolaunch
from .debugarms import arm_at, debug_arms
from .base import PRELUDE_DIR, Cursor, short, split_top_level
from .body import BodyWalker


class MacroUses:
    """The macro half of :class:`.decls.Extractor` (it reads the extractor's files, names and ``macro_insts``)."""


    def macro_args(self, fname: str, start: int, end: int, name: str) -> tuple[str, ...]:
        b = self.file_bytes(fname)
        s = b[start:end].decode("utf-8", "replace")
        i = s.find(name)
        rest = s[i + len(name):] if i >= 0 else s
        rest = rest.lstrip()
        if not rest.startswith("("):
            return ()
        inner = rest[1:]
        if inner.endswith(")"):
            inner = inner[:-1]
        return tuple(short(a) for a in split_top_level(inner)) if inner.strip() else ()

    def macro_def_span(self, m: Cursor) -> Optional[Span]:
        """Where a project file defines the macro a use expands (None: defined outside the project)."""
        try:
            d = m.referenced
            loc = d.location if d is not None else None
        except Exception:  # noqa: BLE001
            return None
        rel = self.rel_of(loc.file.name) if loc is not None and loc.file is not None else None
        return Span(rel, loc.line, loc.column) if rel is not None else None

    def assert_compiled_out(self, m: Cursor) -> bool:
        """The C library's ``assert`` as the unit defines it expands to nothing (``((void)0)``: NDEBUG is defined)."""
        try:
            d = m.referenced
        except Exception:  # noqa: BLE001
            return False
        if d is None:
            return False
        got = self._assert_out.get(d.hash)
        if got is not None:
            return got
        try:
            toks = [t.spelling for t in d.get_tokens()]
        except Exception:  # noqa: BLE001
            toks = []
        # `assert(expr)` whose replacement never names `expr` (`(__ASSERT_VOID_CAST (0))`, `((void)0)`) checks nothing
        out = False
        if len(toks) > 4 and toks[1] == "(" and ")" in toks[2:]:
            close = toks.index(")", 2)
            params = {t for t in toks[2:close] if t not in (",", "...")}
            out = bool(params) and not params.intersection(toks[close + 1:])
        self._assert_out[d.hash] = out
        return out

    def nested_spellings(self, name: str) -> tuple[tuple[str, str, Span], ...]:
        """``(callee, macro, defined_at)`` for each ``callee(`` spelled in the body of exactly one project macro that
        the body of macro ``name`` expands, directly or through others (facts.Call.spelled_by)."""
        memo = self.__dict__.setdefault("_nested_memo", {})
        if name in memo:
            return memo[name]
        memo[name] = ()  # a recursion guard
        seen: dict[str, Optional[tuple[str, Span]]] = {}

        def def_span(d: Cursor) -> Optional[Span]:
            loc = d.location
            rel = self.rel_of(loc.file.name) if loc.file is not None else None
            return Span(rel, loc.line, loc.column) if rel is not None else None

        def body_calls(d: Cursor) -> list[str]:
            try:
                all_toks = list(d.get_tokens())
                toks = [t.spelling for t in all_toks[1:]]
                fn_like = len(all_toks) > 1 and all_toks[1].spelling == "(" and (
                    all_toks[1].extent.start.offset == all_toks[0].extent.end.offset)
            except Exception:  # noqa: BLE001
                return []
            if fn_like:  # a function-like macro's parameters (the `(` right after the name)
                toks = toks[toks.index(")") + 1:] if ")" in toks else []
            return [t for t, nxt in zip(toks, toks[1:]) if nxt == "(" and (t[:1].isalpha() or t[:1] == "_")]

        todo, done = [name], {name}
        while todo:
            d = self._macro_defs.get(todo.pop())
            if d is None:
                continue
            where = def_span(d)
            for callee in body_calls(d):
                inner = self._macro_defs.get(callee)
                if inner is not None and def_span(inner) is not None:
                    if callee not in done:
                        done.add(callee)
                        todo.append(callee)
                    continue
                if d.spelling == name or where is None:
                    seen[callee] = None  # the use's own body spells it too: which one is not known
                    continue
                prev = seen.get(callee, (d.spelling, where))
                seen[callee] = prev if prev is not None and prev[0] == d.spelling else None
        out = tuple((c, mw[0], mw[1]) for c, mw in seen.items() if mw is not None)
        memo[name] = out
        return out

    def macro_from_prelude(self, m: Cursor) -> bool:
        try:
            d = m.referenced
        except Exception:  # noqa: BLE001
            return False
        f = d.location.file if d is not None else None
        return f is not None and f.name.startswith(str(PRELUDE_DIR))

    def attach_macros(self) -> None:
        import bisect

        keys = [(m[0], m[1]) for m in self.macro_insts]
        for fb in self.functions:
            if not isinstance(fb, FnBuild) or fb.gpu:  # a GPU body may reach libclang blanked (device.py)
                continue
            lo = bisect.bisect_left(keys, (fb.file, fb.start))
            hi = bisect.bisect_right(keys, (fb.file, fb.end))
            for f, s, e, name, cur in self.macro_insts[lo:hi]:
                if e > fb.end or self.macro_from_prelude(cur):
                    continue
                rel = self.rel_of(f) or self.src.rel
                ext = cur.extent
                span = Span(rel, ext.start.line, ext.start.column, ext.end.line, ext.end.column)
                args = self.macro_args(f, s, e, name)
                guard = fb.walker.guard_at(f, s, e)
                at = self.macro_def_span(cur)
                fb.walker.calls.append((s, Call(callee=name, span=span, kind="macro", args=args, guard=guard,
                                                defined_at=at,
                                                spelled_by=self.nested_spellings(name) if at is not None else (),
                                                compiled_out=name == "assert" and self.assert_compiled_out(cur))))
                macrolaunch.fill_launches(self, cur, s, e, args, fb.walker.calls)  # launches written in its body
        self.functions = [fb.build() if isinstance(fb, FnBuild) else fb for fb in self.functions]


def _debug_only(w: BodyWalker, file: str, rel: str, calls: list) -> list:
    """``calls`` ((offset, Call) in the function's file), each one in an arm only a debug build compiles
    (:mod:`.debugarms`) given the guard ``"debug-only:<directive>"``, and each one in the then-branch of an ``if`` on
    a debug switch (:mod:`.debugswitch`, innermost) ``"debug-only:if (<condition>)"``, unless it has a guard
    already."""
    if not calls or not file:
        return calls
    memo = w.ex.__dict__.setdefault("_trtlint_debug_arms", {})
    arms = memo.get(file)
    if arms is None:
        data = w.ex.file_bytes(file)
        arms = memo[file] = debug_arms(data) if b"DEBUG" in data else []
    switches = [r for r in w.debug_ranges if r[0] == file]
    if not arms and not switches:
        return calls
    out = []
    for off, call in calls:
        if call.guard is None and call.span.path == rel:
            d = arm_at(arms, off) if arms else ""
            if not d and switches:
                d = min(((e - s, shown) for _f, s, e, shown in switches if s <= off < e), default=(0, ""))[1]
            if d:
                call = dataclasses.replace(call, guard=DEBUG_ONLY + d)
        out.append((off, call))
    return out


class FnBuild:
    """A function being built (calls are added by the macro pass before freezing)."""

    def __init__(self, usr: str, qualname: str, name: str, span: Span, cls: Optional[str], noexcept: bool,
                 walker: BodyWalker, file: str, start: int, end: int, gpu: bool = False) -> None:
        self.usr, self.qualname, self.name, self.span = usr, qualname, name, span
        self.cls, self.noexcept, self.walker = cls, noexcept, walker
        self.file, self.start, self.end = file, start, end
        self.gpu = gpu  # GPU-only: its body is neither walked nor searched for macro calls

    def build(self) -> CppFunction:
        w = self.walker
        calls = [c for _o, c in sorted(_debug_only(w, self.file, self.span.path, flow.finish(w, w.calls)),
                                       key=lambda t: (t[0], t[1].kind != "macro"))]
        return CppFunction(
            usr=self.usr,
            qualname=self.qualname,
            name=self.name,
            span=self.span,
            cls=self.cls,
            noexcept=self.noexcept,
            calls=tuple(calls),
            returns=tuple(w.returns),
            member_strings=tuple(w.member_strings),
            field_decls=tuple(w.field_decls),
            field_reads=tuple(w.field_reads),
            field_resets=tuple(w.field_resets),
            stream_writes=tuple(w.stream_writes.out),
            member_writes=tuple(w.member_writes.out),
        )
