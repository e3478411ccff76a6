"""What a rule reads: the fact kinds (:class:`~trtlint.base.facts.FileFacts` fields) its findings depend on.

Each rule declares them (``Rule.reads``, a frozenset of the names below; ``None``: undeclared, re-run on every
change). The check stage reuses a rule's findings of the last check when no fact kind it reads changed since
and the index's other inputs (suppressions, config, preview scans, TensorRT releases, scopes) are the same
(:class:`RuleMemo`, kept by the editor's project state across edits).

The kinds are the fact fields by name, plus ``files``: which files the project has and their kinds (the keys of
``index.files``, ``FileFacts.path`` and ``.kind``). :func:`traced_reads` records what a rule actually touches
while it runs over an index (the index attributes it reads, mapped to the kinds they are built from, and the
fields of the facts in ``index.files`` it reads); ``tests/test_rule_reads.py`` checks every rule's declaration
against it over the fixture projects and the rule examples.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, Iterable, Optional

from trtlint.base.facts import FileFacts

FILES = "files"
#: every fact kind a rule may declare
FACT_KINDS: frozenset = frozenset({FILES} | {f.name for f in dataclasses.fields(FileFacts) if f.name not in ("path", "kind")})

_CREATOR_KINDS = frozenset({"classes", "functions", "registrations", "py_creators", FILES})
#: index attributes (data and methods) -> the fact kinds they are built from; the attributes of the index's other
#: inputs (the run's, not the facts': suppressions, config, scans, TensorRT releases) map to nothing
INDEX_ATTRIBUTES: dict[str, frozenset] = {
    "files": frozenset({FILES}),
    "classes": frozenset({"classes"}),
    "functions": frozenset({"functions"}),
    "functions_by_qualname": frozenset({"functions"}),
    "methods": frozenset({"functions"}),
    "creators": _CREATOR_KINDS,
    "plugins": _CREATOR_KINDS,
    # a creator list counts when a function calling registerCreator reads it (index/creatorlists.py)
    "registrations": frozenset({"registrations", "functions"}),
    "unregistered_lists": frozenset({"registrations", "functions"}),
    "emissions": frozenset({"emissions"}),
    "route_tables": frozenset({"route_tables"}),
    "route_calls": frozenset({"route_calls"}),
    "lookups": frozenset({"lookups"}),
    "api_uses": frozenset({"api_uses"}),
    "py_creators": frozenset({"py_creators"}),
    "globs": frozenset({"globs"}),
    "models": frozenset({"models"}),
    "plugin_specs": frozenset({"plugin_specs"}),
    "ort_ops": frozenset({"ort_ops"}),
    "converters": frozenset({"converters"}),
    "py_signatures": frozenset({"py_signatures"}),
    "unnamed_layers": frozenset({"unnamed_layers"}),
    "qdp_defs": frozenset({"qdp_defs"}),
    "torch_op_uses": frozenset({"torch_op_uses"}),
    "py_enqueues": frozenset({"py_enqueues"}),
    "py_plugin_fields": frozenset({"py_plugin_fields"}),
    "trt_api_uses": frozenset({"trt_api_uses"}),
    "py_classes": frozenset({"py_classes"}),
    "py_reexports": frozenset({"py_reexports"}),
    "lifecycle": frozenset({"lifecycle"}),
    "lifecycle_by_cls": frozenset({"lifecycle"}),
    "preview_gates": frozenset({FILES}),
}
_INPUTS = frozenset({"root", "profile", "packs", "settings", "suppressions", "config_selectors", "config_globs",
                     "preview_scan", "glob_memos", "tensorrt_targets", "tensorrt_inferred", "tensorrt_scope", "scopes",
                     "model_io", "executable_units",
                     "suppression_use"})


def changed_kinds(old: Optional[FileFacts], new: Optional[FileFacts]) -> set[str]:
    """The fact kinds in which two facts of one file differ (a file added or removed: ``files`` and every kind
    the other one holds)."""
    if old is new:
        return set()
    if old is None or new is None:
        ff = old if new is None else new
        return {FILES} | {k for k in FACT_KINDS if k != FILES and getattr(ff, k, None)}
    out = {f.name for f in dataclasses.fields(FileFacts)
           if f.name not in ("path", "kind") and getattr(old, f.name) != getattr(new, f.name)}
    if old.kind != new.kind:
        out.add(FILES)
    return out


def moved_functions(old: Optional[FileFacts], new: Optional[FileFacts]) -> set[str]:
    """The USRs of the functions of one file whose definitions differ between two facts of it (added, removed, or
    any field of it changed: its calls, its span): what :meth:`WalkCarry.forget` is told of. A unit's facts repeat
    the inline functions of the headers it includes; an edit of the unit that leaves them as they were (the same
    calls at the same places of the header) moves none of them."""
    if old is new:
        return set()
    by: list[dict[str, list]] = []
    for ff in (old, new):
        d: dict[str, list] = {}
        for fn in (ff.functions if ff is not None else ()):
            d.setdefault(fn.usr, []).append(fn)
        by.append(d)
    a, b = by
    return {u for u in a.keys() | b.keys() if a.get(u) != b.get(u)}


class RuleMemo:
    """The findings of each rule (per scope index) at the last check, and the fact kinds changed since: a rule
    whose declared kinds (``Rule.reads``) did not change gives the same findings and is not run again. Any
    change of the index's other inputs (:meth:`inputs_changed`) forgets everything."""

    def __init__(self) -> None:
        self.results: dict[tuple[str, str], list] = {}  # (rule code, scope) -> its findings (before the filter)
        self.changed: Optional[set[str]] = None  # None: everything (nothing known yet)
        self._inputs: Any = None
        self.reused: list[str] = []  # the codes reused by the last check (for the log and the tests)
        self.ran: list[str] = []

    def inputs_changed(self, inputs: Any) -> bool:
        """The index's inputs besides the facts; when they differ from the last check's, nothing is reused (and
        True is returned)."""
        self.reused, self.ran = [], []
        differ = inputs != self._inputs
        if differ:
            self.results.clear()
            self.changed = None
        self._inputs = inputs
        return differ

    @property
    def inputs(self) -> Any:
        """The key of the other inputs at the last check (what :meth:`inputs_changed` was given)."""
        return self._inputs

    def restore(self, results: dict, inputs: Any, changed: set[str]) -> None:
        """Take the findings of a check made in another process (``trtlint check``'s rule memo,
        :mod:`trtlint.pipeline.rulecache`): its results, its inputs' key and the fact kinds changed since."""
        self.results = dict(results)
        self._inputs = inputs
        self.changed = set(changed)

    def note(self, kinds: Iterable[str]) -> None:
        if self.changed is not None:
            self.changed.update(kinds)

    def reusable(self, rule: Any, scope: str) -> Optional[list]:
        reads = getattr(rule, "reads", None)
        if reads is None or self.changed is None or (reads & self.changed):
            return None
        return self.results.get((rule.code, scope))

    def done(self) -> None:
        """The check is over: what changed has been taken into account."""
        self.changed = set()


class WalkCarry:
    """Walks below a function kept from one check of a project state to the next (the editor's session: each
    check builds a new index, but the facts of the files an edit did not touch are the same objects).

    A walk's result depends on the functions it entered (their calls) and on how calls resolve
    (``ProjectIndex.resolve_call``: the index's function tables and ``max_call_depth``). So an entry is kept with the
    USRs of the functions it read (:meth:`put`'s ``entered``; :func:`below` for a walk that reads more than the
    bodies it follows); :meth:`forget` drops every entry that read a function of a file whose facts changed (its
    USR, old or new), and an index whose tables resolve differently (:func:`_resolution_key`: a function added,
    removed or renamed anywhere, a competing definition moved) starts its scope afresh. Whatever else a walk reads
    (an entry's class, the lifecycle details of its method) is part of its key; a change of the index's other inputs
    (packs, settings, config) clears everything (:meth:`clear`). The findings are those of a check without it
    (``tests/test_session_reuse.py``, ``tests/test_walk_carry.py``). Kept: the hot-path walk of one function
    (``checks.hotpath._walk.walk_list``) and what a rule reads of it (``walk_derived``), what each call of a function
    resolves to (:func:`call_targets`, :func:`below`), TRT204's throw walk of one plugin method
    (``checks.plugin._escape.escapes_by_method``), and what the throw/exit walks read of one body and whether a site
    is below it (``_escape._plan``, ``_escape._leads``)."""

    def __init__(self) -> None:
        self.scopes: dict[str, tuple[object, dict]] = {}  # scope -> (resolution key, {key: (walk, usrs, start)})
        self.hits = 0  # walks taken from an earlier check (for the log and the tests)
        self.hits_by_kind: dict[str, int] = {}  # the same, by the first element of the key ("walk", "escape")
        # answers that depend on the index's other inputs only (a pack table asked of a name), whatever the facts
        self.pure: dict[Any, Any] = {}

    def forget(self, usrs: set[str]) -> None:
        """Drop every walk that entered one of these functions."""
        if not usrs:
            return
        for _key, store in self.scopes.values():
            for k in [k for k, v in store.items() if not v[1].isdisjoint(usrs)]:
                del store[k]

    def clear(self) -> None:
        self.scopes.clear()
        self.pure.clear()

    def _store(self, index) -> dict:
        got = index.__dict__.get("_trtlint_carry_store")
        if got is None:
            key = _resolution_key(index)
            scope = getattr(index, "tensorrt_scope", "")
            old = self.scopes.get(scope)
            if old is None or old[0] != key:
                old = self.scopes[scope] = (key, {})
            got = index.__dict__["_trtlint_carry_store"] = old[1]
        return got

    def get(self, index, key: tuple, start: Any) -> Any:
        """The walk ``key`` from ``start`` kept for the index's scope, or None."""
        hit = self._store(index).get(key)
        # (a function of an edited file that the edit left as it was, at the same place: its walk is the same)
        if hit is None or (hit[2] is not start and hit[2] != start):
            return None
        self.hits += 1
        self.hits_by_kind[key[0]] = self.hits_by_kind.get(key[0], 0) + 1
        return hit[0]

    def put(self, index, key: tuple, start: Any, walk: Any, entered: Iterable[str]) -> None:
        """Keep ``walk`` (from ``start``, which entered the functions of the USRs ``entered``)."""
        self._store(index)[key] = (walk, frozenset(entered), start)


def call_targets(index, fn) -> tuple:
    """The project function each call of ``fn`` runs (``index.resolve_call(call, fn)``, None where none), in the order
    of ``fn.calls``. Kept on the index and, in the editor's session, from check to check while ``fn`` is as it was
    (what a call resolves to depends on the call, its caller and the index's tables only: :class:`WalkCarry`). Kept
    by USR: the functions are the index's own."""
    memo = index.__dict__.setdefault("_trtlint_call_targets", {})
    got = memo.get(fn.usr)
    if got is not None and got[0] is fn:
        return got[1]
    carry = index.__dict__.get("_trtlint_carry")
    usrs = carry.get(index, ("calls", fn.usr), fn) if carry is not None else None
    if usrs is None:
        resolve = index.resolve_call
        usrs = tuple(t.usr if t is not None else None for t in (resolve(c, fn) for c in fn.calls))
        if carry is not None:
            carry.put(index, ("calls", fn.usr), fn, usrs, (fn.usr,))
    functions = index.functions
    out = tuple(functions[u] if u is not None else None for u in usrs)
    memo[fn.usr] = (fn, out)
    return out


def below(index, fn) -> frozenset:
    """The USRs of ``fn`` and of every project function below it, at any depth, through every call (in a try or
    not, whatever its behaviour), resolved with the caller and without it: every function a walk from ``fn`` can
    read, however it chooses what to follow (a walk's dependencies for :class:`WalkCarry`, when it reads more than
    the bodies it enters). Kept on the index."""
    memo = index.__dict__.setdefault("_trtlint_below", {})
    got = memo.get(fn.usr)
    if got is not None:
        return got
    targets = index.__dict__.setdefault("_trtlint_below_targets", {})
    carry = index.__dict__.get("_trtlint_carry")
    resolve = index.resolve_call
    functions = index.functions
    seen = {fn.usr}
    todo = [fn]
    while todo:
        f = todo.pop()
        ts = targets.get(f.usr)
        if ts is None:
            # the USRs a function's calls resolve to depend on its calls and the index's tables only: kept too
            ts = carry.get(index, ("targets", f.usr), f) if carry is not None else None
            if ts is None:
                ts = tuple(dict.fromkeys([t.usr for t in call_targets(index, f) if t is not None]
                                         + [t.usr for t in map(resolve, f.calls) if t is not None]))
                if carry is not None:
                    carry.put(index, ("targets", f.usr), f, ts, (f.usr,))
            targets[f.usr] = ts
        for u in ts:
            if u not in seen:
                seen.add(u)
                t = functions.get(u)
                if t is not None:
                    todo.append(t)
    got = memo[fn.usr] = frozenset(seen)
    return got


def _resolution_key(index) -> tuple:
    """What ``resolve_call`` answers from besides the caller and the call: every function's USR and qualified name,
    the place of each definition that competes for a qualified name, and the depth limit of a walk."""
    multi = tuple(sorted((q, tuple((f.usr, f.name, f.span.path, f.span.end_line, f.span.end_col) for f in fs))
                         for q, fs in index.functions_by_qualname.items() if len(fs) > 1))
    return (getattr(index.settings, "max_call_depth", 8),
            frozenset((u, fn.qualname) for u, fn in index.functions.items()), multi)


class _TracedFacts(FileFacts):
    """A copy of a file's facts that records which fields are read (``traced_reads``)."""

    def __getattribute__(self, name: str) -> Any:
        if _TRACE and not name.startswith("__"):
            _TRACE[-1].add(FILES if name in ("path", "kind") else name)
        return super().__getattribute__(name)


_TRACE: list[set] = []


def traced_reads(rule_cls: Any, index: Any) -> tuple[set[str], list]:
    """Run ``rule_cls`` over a traced shallow copy of ``index`` (built afresh by the caller: the memos the rules
    keep on an index must be computed while traced) and return (the fact kinds it touched, its findings).
    An index attribute this module does not know comes back as ``?name``."""
    from trtlint.index.project_index import ProjectIndex

    touched: set[str] = set()

    class _TracedIndex(type(index)):  # type: ignore[misc, valid-type]
        def __getattribute__(self, name: str) -> Any:
            if not name.startswith("_"):
                kinds = INDEX_ATTRIBUTES.get(name)
                if kinds is not None:
                    touched.update(kinds)
                elif name not in _INPUTS and name not in ProjectIndex.__dict__ and name not in type(index).__dict__:
                    touched.add("?" + name)
            return super().__getattribute__(name)

    idx = copy.copy(index)
    files = {}
    for rel, ff in index.files.items():
        c = copy.copy(ff)
        object.__setattr__(c, "__class__", _TracedFacts)
        files[rel] = c
    idx.__dict__["files"] = files
    idx.__class__ = _TracedIndex
    _TRACE.append(touched)
    try:
        found = list(rule_cls().check(idx))
    finally:
        _TRACE.pop()
    return touched, found
