"""Walk from each plugin method, by its temperature, through project functions to the calls a rule looks for.

A method's temperature comes from the `temperatures` table of the rules/ packs (rules/cpp_behaviour.yaml):
hot (`enqueue`, V3 `setTactic`) runs for every inference, warm (V3 `onShapeChange`, V2DynExt
`configurePlugin`, `getWorkspaceSize`) whenever input shapes change, cold (everything else) at build, load
or teardown. A finding's severity follows the hottest method that reaches it (`temperature_severity`).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Iterator, Optional

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from trtlint.base.facts import DEBUG_ONLY, Call, CppFunction
from trtlint.config.packs import ApiEntry

from ..reads import call_targets

_ORDER = {"hot": 0, "warm": 1, "cold": 2}
_WHEN = {
    "hot": "on the hot path of",
    "warm": "on the warm path (runs whenever input shapes change) of",
    "cold": "in",
}


@dataclass(frozen=True)
class Entry:
    """A method of a plugin (or creator) class that TensorRT calls, with its temperature."""

    plugin: str  # the class's short name
    fn: CppFunction
    temperature: str
    qualname: str = ""  # the class's qualified name


@dataclass(frozen=True)
class HotHit:
    plugin: str
    enqueue: CppFunction  # the entry method (enqueue, or a warm/cold method)
    call: Call
    chain: tuple[CppFunction, ...]
    entry: Optional[ApiEntry]
    temperature: str = "hot"
    also: tuple[Entry, ...] = ()  # other plugins' entries of the same temperature that reach the same call site


def short(fn: CppFunction) -> str:
    parts = fn.qualname.split("::")
    return "::".join(parts[-2:]) if fn.cls else parts[-1]


_short = short


def entries(index, temperatures=("hot", "warm"), creators: bool = False) -> list[Entry]:
    """Plugin methods (the nearest definition of each name up the class's project bases) whose temperature is
    one of ``temperatures``, hottest first; with ``creators`` also every method of every C++ creator (cold)."""
    memo = index.__dict__.setdefault("_trtlint_entries", {})
    key = (tuple(temperatures), creators)
    if key in memo:
        return memo[key]
    out: list[Entry] = []
    classes = list(index.plugins)
    if creators:
        classes += [c for c in index.creators if c.cls.family.startswith("creator_")]
    for info in classes:
        fam = info.cls.family
        seen_names: set[str] = set()
        for q in index.ancestors(info.qualname):
            names_here: set[str] = set()
            for fn in index.methods.get(q, ()):
                if fn.name in seen_names:
                    continue
                names_here.add(fn.name)
                temp = "cold" if info.cls.kind == "creator" else index.packs.temperature(fn.name, fam)
                if temp in temperatures:
                    out.append(Entry(info.cls.name, fn, temp, info.qualname))
            seen_names |= names_here
    out.sort(key=lambda e: _ORDER[e.temperature])
    memo[key] = out
    return out


def reachable(index, temperatures=("hot", "warm"), creators: bool = False) -> Iterator[tuple[Entry, Call, tuple[CppFunction, ...]]]:
    """Every (entry, call, chain) below the entries; a call site once, for the hottest entry reaching it.
    Several rules ask the same question of one index: the answer is kept on the index."""
    memo = index.__dict__.setdefault("_trtlint_reachable", {})
    key = (tuple(temperatures), creators)
    got = memo.get(key)
    if got is None:
        got = memo[key] = list(_reachable(index, temperatures, creators))
    return iter(got)


def walk_list(index, fn: CppFunction) -> list[tuple[Call, tuple[CppFunction, ...]]]:
    """``list(index.walk_calls(fn))``, kept on the index: an entry's walk is asked for by several rules; and, in the
    editor's session, from check to check while no function it entered changed (:class:`trtlint.checks.reads.WalkCarry`)."""
    memo = index.__dict__.setdefault("_trtlint_walks", {})
    got = memo.get(fn.usr)
    if got is None:
        carry = index.__dict__.get("_trtlint_carry")
        kept = carry.get(index, ("walk", fn.usr), fn) if carry is not None else None
        if kept is not None:
            got = kept
        else:
            got = list(index.walk_calls(fn))
            if carry is not None:
                carry.put(index, ("walk", fn.usr), fn, got, {fn.usr, *(f.usr for _c, chain in got for f in chain)})
        memo[fn.usr] = got
    return got


def walk_derived(index, fn: CppFunction, name: str, compute):
    """``compute(walk_list(index, fn))``, kept on the index under ``name`` and, in the editor's session, from check to
    check with the walk (:class:`trtlint.checks.reads.WalkCarry`): for what a rule reads of an entry's walk that
    depends on nothing but the walk and the index's inputs (the packs, how calls resolve)."""
    memo = index.__dict__.setdefault("_trtlint_walk_derived", {})
    key = (name, fn.usr)
    if key in memo:
        return memo[key]
    carry = index.__dict__.get("_trtlint_carry")
    got = carry.get(index, ("derived", name, fn.usr), fn) if carry is not None else None
    if got is None:
        walk = walk_list(index, fn)
        got = compute(walk)
        if carry is not None:
            carry.put(index, ("derived", name, fn.usr), fn, got, {fn.usr, *(f.usr for _c, chain in walk for f in chain)})
    memo[key] = got
    return got


def entry_bodies(index, from_entries, on_skip=None) -> Iterator[tuple[Entry, CppFunction, tuple[CppFunction, ...], list]]:
    """The function bodies reachable from each entry (breadth first, ``max_call_depth``): yields
    ``(entry, fn, chain, follow)``; the caller appends to ``follow`` the functions ``fn`` leads to. A body
    already walked from an earlier entry at the same depth or less is not walked again: what lies below it
    within the depth limit was seen then. For walks that report each finding once, for the first entry;
    ``on_skip(entry, fn)`` hears of a body an entry reaches that is not walked again."""
    limit = getattr(index.settings, "max_call_depth", 8)
    walked: dict[str, int] = {}  # usr -> the least depth its body was walked at
    for e in from_entries:
        visited = {e.fn.usr}
        frontier: list[tuple[CppFunction, tuple[CppFunction, ...]]] = [(e.fn, (e.fn,))]
        depth = 0
        while frontier and depth <= limit:
            nxt = []
            for fn, chain in frontier:
                if walked.get(fn.usr, limit + 1) <= depth:
                    if on_skip is not None:
                        on_skip(e, fn)
                    continue
                walked[fn.usr] = depth
                follow: list[CppFunction] = []
                yield e, fn, chain, follow
                for target in follow:
                    if target.usr not in visited:
                        visited.add(target.usr)
                        nxt.append((target, chain + (target,)))
            frontier = nxt
            depth += 1


def _reachable(index, temperatures, creators: bool) -> Iterator[tuple[Entry, Call, tuple[CppFunction, ...]]]:
    """:meth:`ProjectIndex.walk_calls` from each entry, hottest first, each call site once (for the hottest
    entry reaching it), in the context each body is reached in (:func:`_contexts`): a call that never runs there
    (size-query mode) is left out, with what only it leads to, and a call in a body reached only under a
    one-time or error-path guard carries that guard."""
    seen: set[tuple] = set()
    # who reaches each body: the entries that walked or would have walked it, and the calls between bodies
    direct: dict[str, list[Entry]] = {}
    edges: dict[str, set[str]] = {}
    index.__dict__.setdefault("_trtlint_reach_graph", {})[(tuple(temperatures), creators)] = (direct, edges)

    def skipped(e: Entry, fn: CppFunction) -> None:
        direct.setdefault(fn.usr, []).append(e)

    walked: list[tuple[Entry, CppFunction, tuple[CppFunction, ...], list]] = []
    for e, fn, chain, follow in entry_bodies(index, entries(index, temperatures, creators), skipped):
        if fn is e.fn:
            direct.setdefault(fn.usr, []).append(e)
        targets = call_targets(index, fn)
        follow.extend(t for t in targets if t is not None)
        walked.append((e, fn, chain, targets))
    ctx = _contexts(walked, _roots(index, entries(index, temperatures, creators), walked))
    for e, fn, chain, targets in walked:
        here = ctx.get(fn.usr)
        if here is None:
            continue  # reached only through calls that never run (a size query's)
        guard = here[0]
        plain = not here[1] and not here[2]
        out = edges.setdefault(fn.usr, set())
        for call, target in zip(fn.calls, targets):
            if not plain and never_runs(call, here):
                continue
            # (the launches one macro use expands to share its span: each is told apart by where its body writes it)
            key = (call.span.path, call.span.line, call.span.col, call.callee, call.kind, call.defined_at)
            if key not in seen:
                seen.add(key)
                yield e, (call if call.guard or guard is None else dataclasses.replace(call, guard=guard)), chain
            if target is not None:
                out.add(target.usr)


def never_runs(call: Call, context: tuple[Optional[str], frozenset, frozenset]) -> bool:
    """Whether ``call`` never runs in the ``context`` its function is reached in (:func:`body_contexts`): it comes after
    `if (!p) return size;` with p null on every way there (a size query's call), or under `if (!p)` with p a pointer
    into enqueue's workspace on every way there."""
    _guard, nulls, given = context
    if not nulls and not given:
        return False
    return bool(nulls.intersection(call.needs_args) or given.intersection(call.null_args))


def body_contexts(index, starts: list[Entry], walked) -> dict[str, tuple[Optional[str], frozenset, frozenset]]:
    """The context each walked body is reached in from the entries ``starts`` (:func:`_contexts`, rooted at
    :func:`_roots`); ``walked``: ``(entry, fn, chain, targets)`` per body, ``targets`` the project function each call
    of ``fn.calls`` leads to (None where the walk does not follow it). A body absent from the result is reached only
    through calls that never run there."""
    return _contexts(walked, _roots(index, starts, walked))


def _roots(index, starts: list[Entry], walked) -> dict[str, frozenset]:
    """The entries TensorRT itself calls, the roots of the contexts: a method the TensorRT interfaces declare, a
    constructor or destructor, or a method nothing walked calls. A helper method of the plugin class that one of
    its methods calls (an autotuner `configurePlugin` runs under `if (!mTuned)`) is reached in its callers'
    context, not as a root of its own. Each with the indexes of its pointer parameters TensorRT never passes null:
    ``enqueue``'s workspace when every plugin class it is the ``enqueue`` of asks for some (:func:`workspace_given`)."""
    names = index.__dict__.get("_trtlint_iface_names")
    if names is None:
        names = index.__dict__["_trtlint_iface_names"] = frozenset(
            m.name for it in index.packs.trt_interfaces.values() for m in it.methods)
    called = {t.usr for _e, _fn, _chain, targets in walked for t in targets if t is not None}
    out: dict[str, frozenset] = {}
    for x in starts:
        fn = x.fn
        cls = (fn.cls or "").split("::")[-1].split("<")[0]
        if fn.name in names or fn.name == cls or fn.name.startswith("~") or fn.usr not in called:
            given = frozenset()
            if fn.name == "enqueue":
                md = index.lifecycle.get(fn.usr)
                ws = md.workspace_param if md is not None else None
                if ws is not None and workspace_given(index, x.qualname):
                    given = frozenset({ws})
            out[fn.usr] = out[fn.usr] & given if fn.usr in out else given
    return out


# a returned size that may be zero: a literal 0, or a conditional with a 0 arm (`return n ? bytes : 0;`)
_ZERO = re.compile(r"0[uUlLzZ]*|\(\s*(?:size_t|std::size_t|int\w*)\s*\)\s*0[uUlL]*|(?:static_cast\s*<[^>]*>|size_t|std::size_t)\s*\(\s*0[uUlL]*\s*\)|\{\s*\}")
_ZERO_ARM = re.compile(r"[?:]\s*\(?\s*0[uUlLzZ]*\s*\)?\s*(?=:|$)")


def workspace_given(index, qualname: str) -> bool:
    """Whether TensorRT hands the plugin class's ``enqueue`` a non-null workspace: its ``getWorkspaceSize`` (of the
    class or its nearest project base; every overload) has returns and none of them may be zero (a literal 0, a
    conditional with a 0 arm, a return clang could not analyse). A class that does not define it asks for none."""
    if not qualname:
        return False
    memo = index.__dict__.setdefault("_trtlint_workspace_given", {})
    got = memo.get(qualname)
    if got is None:
        mds = index.method_details(qualname, "getWorkspaceSize")
        got = bool(mds) and all(
            md.returns and all(r.kind not in ("unknown", "nullptr", "bool") and not _ZERO.fullmatch(r.expr.strip())
                               and not _ZERO_ARM.search(r.expr) for r in md.returns)
            for md in mds)
        memo[qualname] = got
    return got


def _guard_rank(guard: Optional[str]) -> int:
    """How much of the time a body under ``guard`` runs: an error path (0) < one-time initialisation (1) < always (2)."""
    return 2 if guard is None else 0 if guard.startswith("error-path:") else 1


_NONE: frozenset = frozenset()


def _contexts(walked, roots: dict[str, frozenset]) -> dict[str, tuple[Optional[str], frozenset, frozenset]]:
    """The context each walked body is reached in, over every way the walk reaches it (a fixpoint from the
    entries): ``(guard, nulls, given)``, where ``guard`` is None when some way reaches it unguarded, else the
    one-time (or, failing that, error-path) guard of a call on the way (a guard in a caller is carried into its
    callees), ``nulls`` the indexes of its pointer parameters that are null on every way (a caller's null argument,
    or its own null parameter passed on: size-query mode), and ``given`` those that are non-null on every way (a
    pointer into ``enqueue``'s workspace: the caller's non-null parameter passed on, cast, advanced or carved, the
    ``arg_null`` ``"p<j>"`` and ``"d<j>"``). A body absent from the result is reached only through calls that never
    run. ``roots``: the entries' bodies, with their non-null parameters."""
    body: dict[str, tuple[CppFunction, list]] = {}
    for e, fn, _chain, targets in walked:
        body.setdefault(fn.usr, (fn, targets))
    ctx: dict[str, tuple[Optional[str], frozenset, frozenset]] = {}
    todo: list[str] = []
    for u, given in roots.items():  # the entries: reached by TensorRT, unguarded
        if u in body and u not in ctx:
            ctx[u] = (None, frozenset(), given)
            todo.append(u)
    while todo:
        u = todo.pop()
        fn, targets = body[u]
        guard, nulls, given = ctx[u]
        plain = not nulls and not given  # (the context most bodies are reached in: nothing is null or given)
        for call, target in zip(fn.calls, targets):
            if target is None or target.usr not in body or (not plain and never_runs(call, (guard, nulls, given))):
                continue
            g = call.guard if call.guard is not None else guard
            if call.arg_null:
                n = frozenset(i for i, a in enumerate(call.arg_null)
                              if a == "null" or (a.startswith("p") and a[1:].isdigit() and int(a[1:]) in nulls))
                s = frozenset(i for i, a in enumerate(call.arg_null)
                              if a[:1] in ("p", "d") and a[1:].isdigit() and int(a[1:]) in given) if given else _NONE
            else:
                n = s = _NONE
            old = ctx.get(target.usr)
            if old is not None:
                g = old[0] if _guard_rank(old[0]) >= _guard_rank(g) else g
                n = old[1] & n
                s = old[2] & s
                if (g, n, s) == old:
                    continue
            ctx[target.usr] = (g, n, s)
            todo.append(target.usr)
    return ctx


def reached_by(index, fn: CppFunction, temperatures=("hot", "warm"), creators: bool = False) -> list[Entry]:
    """Every entry whose walk reaches ``fn`` (a helper shared by several plugins' ``enqueue``s), in walk order."""
    reachable(index, temperatures, creators)
    direct, edges = index.__dict__["_trtlint_reach_graph"][(tuple(temperatures), creators)]
    memo = index.__dict__.setdefault("_trtlint_reached_by", {}).setdefault((tuple(temperatures), creators), None)
    if memo is None:
        memo = {}
        for start, es in direct.items():
            todo, seen_usr = [start], {start}
            while todo:
                u = todo.pop()
                for e in es:
                    lst = memo.setdefault(u, [])
                    if e not in lst:
                        lst.append(e)
                for v in edges.get(u, ()):
                    if v not in seen_usr:
                        seen_usr.add(v)
                        todo.append(v)
        index.__dict__["_trtlint_reached_by"][(tuple(temperatures), creators)] = memo
    return memo.get(fn.usr, [])


def hot_hits(index, table: str, temperatures=("hot", "warm")) -> Iterator[HotHit]:
    for e, call, chain in reachable(index, temperatures):
        entry = index.packs.lookup(table, call.callee)
        if entry is None or is_error_path(call):
            continue
        also: list[Entry] = []
        if len(chain) > 1:  # a helper: other plugins' entries of the same temperature may reach it too
            for x in reached_by(index, chain[-1], temperatures):
                if x.plugin != e.plugin and x.temperature == e.temperature and all(x.plugin != y.plugin for y in also):
                    also.append(x)
        yield HotHit(e.plugin, e.fn, call, chain, entry, e.temperature, tuple(also))


def is_error_path(call: Call) -> bool:
    return bool(call.guard and call.guard.startswith("error-path:"))


def is_debug_only(call: Call) -> bool:
    """In an arm only a debug build compiles (``#ifndef NDEBUG``: :mod:`trtlint.frontends.cpp.debugarms`) or in the
    branch of a run-time debug switch (``if (level == "DEBUG")``: :mod:`trtlint.frontends.cpp.debugswitch`)."""
    return bool(call.guard and call.guard.startswith(DEBUG_ONLY))


def chain_text(hit: HotHit) -> str:
    return " -> ".join([_short(f) for f in hit.chain] + [hit.call.callee])


def temperature_severity(index, temperature: str, *candidates: Optional[Severity]) -> Severity:
    """The lowest of the temperature's severity and the given ones (None entries are ignored)."""
    sev = Severity(index.packs.temperature_severity.get(temperature, "error"))
    for c in candidates:
        if c is not None and c.rank < sev.rank:
            sev = c
    return sev


def where(hit_plugin: str, entry_fn: CppFunction, temperature: str) -> str:
    return f"{_WHEN[temperature]} {hit_plugin}::{entry_fn.name}"


def once_note(call: Call, chain: tuple[CppFunction, ...]) -> tuple[Optional[Severity], str]:
    """(INFO, why) for a call that runs only once or only when an owned resource is released; else (None, "")."""
    cleanup = next((f for f in chain[1:] if f.name.startswith("~") or f.name == "operator="), None)
    if cleanup is not None:
        # a destructor or assignment operator releases what the object owns; whether it owns anything on
        # this path is not known statically (views over enqueue's buffers own nothing)
        return Severity.INFO, f" only through {_short(cleanup)}, which releases what the object owns"
    if call.guard and call.guard.startswith(DEBUG_ONLY):
        # code only a debug build compiles, or only a debug switch runs: not the work of every inference users run
        cond = call.guard[len(DEBUG_ONLY):]
        if cond.startswith("#"):
            return Severity.INFO, f" only in a debug build (`{cond}`)"
        cond, _sep, why = cond.partition("; where ")  # a switch the condition's words do not show, and why it is one
        return Severity.INFO, f" only when a debug switch is on (`{cond}`" + (f", where {why})" if why else ")")
    if call.guard and not is_error_path(call):
        # one-time guarded initialisation: it runs on the hot path once, not on every call
        why = "a function-local static's initializer" if call.guard == "static-init" else (
            "guarded by `" + call.guard.split(":", 1)[-1] + "`"
        )
        return Severity.INFO, f" once (one-time initialisation: {why})"
    return None, ""


def hot_diag(rule, hit: HotHit, verb: str, index=None) -> Diagnostic:
    sev = Severity(hit.entry.severity) if hit.entry is not None and hit.entry.severity else None
    if index is not None:
        sev = temperature_severity(index, hit.temperature, rule.severity, sev)
    low, once = once_note(hit.call, hit.chain)
    if low is not None:
        sev = low
    what = f" ({hit.entry.what})" if hit.entry is not None else ""
    # one finding for a helper several plugins reach, naming every one of them
    others = "".join(f", {x.plugin}::{x.fn.name}" for x in hit.also)
    return rule.diag(
        hit.call.span,
        f"{hit.call.callee}{what} {verb}{once} {where(hit.plugin, hit.enqueue, hit.temperature)}{others}: {chain_text(hit)}",
        related=[Related(hit.enqueue.span, f"{hit.plugin}::{hit.enqueue.name} is defined here")]
        + [Related(f.span, f"via {_short(f)}") for f in hit.chain[1:]]
        + [Related(x.fn.span, f"{x.plugin}::{x.fn.name} reaches it too") for x in hit.also],
        symbol=f"{hit.plugin}:{hit.call.callee}:{_short(hit.chain[-1])}",
        severity=sev,
    )


def reach_diag(rule, index, e: Entry, call: Call, chain: tuple[CppFunction, ...], head: str, tail: str = "",
               symbol: Optional[str] = None):
    """The finding of a call reached from a plugin entry: ``{head}{once note}{tail}: {chain}``, at the entry's
    temperature (lowered for one-time and cleanup paths), with the entry and each step as related locations."""
    low, once = once_note(call, chain)
    sev = temperature_severity(index, e.temperature, rule.severity, low)
    chain_s = " -> ".join([short(f) for f in chain] + [call.callee])
    return rule.diag(
        call.span,
        f"{head}{once}{tail}: {chain_s}",
        related=[Related(e.fn.span, f"{e.plugin}::{e.fn.name} is defined here")]
        + [Related(f.span, f"via {short(f)}") for f in chain[1:]],
        symbol=symbol or f"{e.plugin}:{call.callee}:{short(chain[-1])}",
        severity=sev,
    )
