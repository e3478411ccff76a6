"""Walk from plugin and creator methods to throws and process exits (TRT204, TRT205).

Unlike the hot-path walk, this one knows about `try`: a call inside the body of a try block is caught there
(with everything below it), so it is neither reported nor followed when ``honour_try`` is set. Calls a
rules/ pack macro expands to (the `throw` inside `ELLM_CHECK`, the `throwPluginError` call inside
`PLUGIN_VALIDATE`) are reported as the macro, once. The project's own definition wins over the pack: when a
project file defines a pack macro and what its expansion visibly does (a `throw`, `abort()`, `assert(0)`)
is not what the pack says (TensorRT Edge-LLM's `CUDA_CHECK` throws; another codebase's calls `assert`), the
expansion decides: the macro is not taken as the pack says, and what it expands to is reported at its use,
naming the definition. Kernel launches are not followed: device code neither throws nor exits the process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterator, Optional

from trtlint.base.facts import INDEX_BOUNDS, NULL_ARGUMENT, UNNAMED_ENUMERATOR, UNREACHABLE, UNSUPPORTED_DTYPE, Call, CppFunction, Span
from trtlint.config.packs import BehaviourEntry, type_key
from ..hotpath._walk import Entry, body_contexts, entries, entry_bodies, never_runs, short, workspace_given
from ..reads import below


@dataclass(frozen=True)
class Escape:
    entry: Entry
    call: Call
    chain: tuple[CppFunction, ...]
    behaviour: Optional[BehaviourEntry]  # None for a `throw` expression
    in_macro: Optional[str] = None  # a macro (not in the packs) the throw is expanded from


def _inside(s: Span, outer: Span) -> bool:
    return (
        s.path == outer.path
        and (outer.line, outer.col) <= (s.line, s.col)
        and (s.line, s.col) <= (outer.end_line, outer.end_col)
    )


def _body(index, fn: CppFunction) -> list[tuple[Call, Optional[BehaviourEntry], Optional[str]]]:
    """The calls of ``fn`` with their known behaviour; calls expanded from a known macro are dropped."""
    memo = index.__dict__.setdefault("_trtlint_escape_body", {})
    got = memo.get(fn.usr)
    if got is not None:
        return got
    behaviour = index.packs.behaviour
    macros = [c for c in fn.calls if c.kind == "macro"]
    if not macros:
        out = [(call, behaviour(call), None) for call in fn.calls]
        memo[fn.usr] = out
        return out
    known = [c for c in macros if behaviour(c) is not None]
    overridden = {id(m): _own_definition(m, fn.calls, behaviour, index) for m in known}
    known = [m for m in known if overridden[id(m)] is None]
    out = []
    for call in fn.calls:
        unknown = None
        if call.kind != "macro":
            if any(_inside(call.span, m.span) for m in known):
                continue
            m = next((m for m in macros if _inside(call.span, m.span)), None)
            if m is not None:
                unknown = overridden.get(id(m)) or m.callee
        elif overridden.get(id(call)) is not None:
            out.append((call, None, None))  # its definition decides: the calls it expands to are judged
            continue
        out.append((call, behaviour(call), unknown))
    memo[fn.usr] = out
    return out


# lookups that throw when the key is missing, and the membership tests that make them safe
_LOOKUPS = ("std::map::at", "std::unordered_map::at")
# by the standard containers' names and the usual spellings of a project's own test: count, find, contains*,
# has*, exist*/exists*, is_exist*/isExist*/isContained...
_MEMBERSHIP = re.compile(r"(?:^|::)(?:count|find|[Cc]ontains\w*|[Hh]as(?:_\w+|[A-Z]\w*)?"
                         r"|(?:[Ii]s_?)?(?:[Ee]xists?|[Cc]ontain(?:s|ed)?)(?:_\w+|[A-Z]\w*)?)$")


# a map's methods that leave a key in it (whether or not they inserted it), with the argument the key is in;
# insert's is the first element of the pair it is given
_INSERTS = {"insert": 0, "emplace": 0, "try_emplace": 0, "insert_or_assign": 0, "emplace_hint": 1, "operator[]": 1}
_PAIR = re.compile(r"^(?:(?:::)?std::make_pair\s*(?:<.*>)?\s*\(|(?:(?:::)?std::pair\s*(?:<.*>)?|[\w:]*value_type)\s*[({]|\{)")


def _first_element(text: str) -> Optional[str]:
    """The first element of a pair as written (``std::make_pair(k, v)``, ``{k, v}``, ``std::pair<K, V>(k, v)``,
    ``Map::value_type(k, v)``): the text up to its first top-level comma; None for anything else."""
    m = _PAIR.match(text)
    if m is None:
        return None
    depth = 0
    for i in range(m.end(), len(text)):
        ch = text[i]
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            return text[m.end():i]
    return None


def _inserted_key(c: Call, container: str) -> Optional[str]:
    """The key ``c`` leaves in a map of type ``container`` (``std::map``): ``m.insert(std::make_pair(k, v))``,
    ``m.insert({k, v})``, ``m.emplace(k, v)``, ``m.try_emplace(k, ...)``, ``m[k] = v``; None for other calls."""
    head, _, method = c.callee.split("<")[0].rpartition("::")
    at = _INSERTS.get(method)
    if head != container or at is None or len(c.args) <= at:
        return None
    if method == "operator[]" and len(c.args) != 2:
        return None
    if method == "insert":
        return None if len(c.args) != 1 else _first_element(" ".join(c.args[0].split()))
    return c.args[at]


def _removes(c: Call, container: str, key: str) -> bool:
    """``m.erase(k)`` or ``m.clear()`` on a map of type ``container``: the key may be gone after it."""
    head, _, method = c.callee.split("<")[0].rpartition("::")
    return head == container and (method == "clear" or (method == "erase" and (not c.args or " ".join(c.args[0].split()) == key)))


def _guarded_lookup(fn: CppFunction, call: Call) -> bool:
    """``m.at(k)`` after a membership test of the same key in the same function (``m.count(k) ? m.at(k) : d``,
    ``if (m.find(k) != m.end())``, ``if (isExist(k))``, a check macro on ``isExist(k)``): the key is there (or the
    test's own failure is what is reported), so the lookup does not throw. So is ``m.at(k)`` after a map of the same
    type was given the key (``m.insert(std::make_pair(k, v))``, ``m.emplace(k, v)``, ``m[k] = v``) with no
    ``erase``/``clear`` of that map type in between: the key is there whether or not the insertion took place."""
    callee = call.callee.split("<")[0]
    if callee not in _LOOKUPS or not call.args:
        return False
    key = " ".join(call.args[0].split())
    at = (call.span.line, call.span.col)
    before = [c for c in fn.calls if c is not call and (c.span.line, c.span.col) <= at]
    if any(c.args and " ".join(c.args[0].split()) == key and _MEMBERSHIP.search(c.callee.split("<")[0]) for c in before):
        return True
    container = callee.rpartition("::")[0]
    given = [(c.span.line, c.span.col) for c in before
             if (k := _inserted_key(c, container)) is not None and " ".join(k.split()) == key]
    if not given:
        return False
    last = max(given)
    return not any(last < (c.span.line, c.span.col) and _removes(c, container, key) for c in before)


def _index_check(call: Call, beh: Optional[BehaviourEntry]) -> bool:
    """A throw only an index out of range raises: a sequence's ``at(i)`` (``index_check`` in the packs) or a
    ``throw std::out_of_range`` in a bounds check of the function's own integer parameter (``facts.INDEX_BOUNDS``).
    The standard calls it a logic error: a program error, as a failed assert, not a runtime failure."""
    return (beh is not None and beh.index_check) or call.guard == "error-path:" + INDEX_BOUNDS


def null_argument(index, e: Entry, fn: CppFunction, call: Call) -> bool:
    """A failure only a null pointer argument of the interface method TensorRT calls raises (``facts.NULL_ARGUMENT``:
    ``PLUGIN_VALIDATE(inputs != nullptr && outputs != nullptr)``, ``if (!libNamespace) throw ...;`` in ``enqueue`` or
    ``setPluginNamespace`` itself), where every parameter tested is one TensorRT never passes null (the ``nonnull``
    types of rules/tensorrt_interfaces.yaml): an argument precondition, a caller's bug (std::invalid_argument is a
    std::logic_error), not a runtime failure. Not so in a helper (the plugin may pass it a null of its own making),
    nor on a parameter TensorRT may leave null (enqueue's workspace, attachToContext's library handles)."""
    if call.guard != "error-path:" + NULL_ARGUMENT or not call.null_tested or not e.qualname or fn.usr != e.fn.usr:
        return False
    ok = index.packs.nonnull_arguments(e.fn.name.split("<")[0])
    return bool(ok) and all(type_key(t) in ok for t in call.null_tested)


def _unsupported_dtype(call: Call) -> bool:
    """In the branch of a data-type dispatch for no accepted type (``facts.UNSUPPORTED_DTYPE``): TensorRT never
    hands the plugin such a type, so the throw or exit there does not run (on a walk from a plugin method: a
    creator's types come from the model, see :func:`from_creator`). So is the ``default:`` of a switch whose cases name
    every enumerator of its enum (``facts.UNNAMED_ENUMERATOR``): only a value the plugin made invalid reaches it."""
    return call.guard in ("error-path:" + UNSUPPORTED_DTYPE, "error-path:" + UNNAMED_ENUMERATOR)


# the size the plugin asked TensorRT for, as enqueue passes it on: a call of its own getWorkspaceSize, nothing else
_OWN_SIZE = re.compile(r"(?:this\s*->\s*)?getWorkspaceSize\s*\(")


def _own_size(text: str) -> bool:
    """``text`` is one call of ``getWorkspaceSize(...)`` (not a member, a literal, or a value computed from one)."""
    t = " ".join(text.split())
    m = _OWN_SIZE.match(t)
    if m is None:
        return False
    depth = 1
    for i in range(m.end(), len(t)):
        depth += {"(": 1, ")": -1}.get(t[i], 0)
        if depth == 0:
            return i == len(t) - 1
    return False


def _callers(index, e: Entry) -> dict[str, list[tuple[CppFunction, Call]]]:
    """Every project call below ``e``'s method (in a try or not, whatever the walk would stop at; the call depth
    limit plus one), by callee: the callers a hop may have, more than the walk follows."""
    memo = index.__dict__.setdefault("_trtlint_escape_callers", {})
    got = memo.get(e.fn.usr)
    if got is not None:
        return got
    out: dict[str, list[tuple[CppFunction, Call]]] = {}
    limit = getattr(index.settings, "max_call_depth", 8) + 1
    seen = {e.fn.usr}
    frontier = [e.fn]
    for _depth in range(limit):
        nxt = []
        for fn in frontier:
            for c in fn.calls:
                if c.kind != "call":
                    continue
                t = index.resolve_call(c, fn)
                if t is None:
                    continue
                out.setdefault(t.usr, []).append((fn, c))
                if t.usr not in seen:
                    seen.add(t.usr)
                    nxt.append(t)
        frontier = nxt
    memo[e.fn.usr] = out
    return out


def own_request(index, e: Entry, fn: CppFunction, call: Call) -> bool:
    """A throw or exit in ``fn`` on a size exceeding ``fn``'s own integer parameter (``Call.over_param``: ``if (size >
    workspace_size) throw ...;``, the parameter untouched before the test) where, on every call below ``enqueue`` that
    reaches ``fn``, that parameter is, hop by hop, the caller's same parameter passed on as a plain name
    (``Call.arg_params``: written nowhere but in a size query's branch that returns first, handed to no other callee
    before the hop) and, at ``enqueue``, a call of the plugin's own ``getWorkspaceSize(...)``; calls with a null
    workspace that the next hop needs set (a size query) do not count, and at least one other must. TensorRT hands
    ``enqueue`` a workspace at least that large: a carve exceeding it is a bug in the plugin's own size arithmetic, an
    invariant, not a run-time failure. False when unsure (another entry, any hop's argument not the plain parameter, a
    member, a literal or a computed size at ``enqueue``, a call this cannot resolve)."""
    if call.over_param is None or e.fn.name.split("<")[0] != "enqueue" or fn.usr == e.fn.usr:
        return False
    callers = _callers(index, e)

    def ok(target: CppFunction, j: int, path: frozenset, down: list[Call]) -> bool:
        """``down``: the calls in ``target`` that lead on to the carve (the throw itself in the carver)."""
        if target.usr == e.fn.usr or target.usr in path:
            return False  # the entry's own parameter, or a cycle: not known
        sites = callers.get(target.usr)
        if not sites:
            return False
        judged = 0
        for caller, c in sites:
            if any(a == "null" and all(p in d.needs_args for d in down) for p, a in enumerate(c.arg_null)):
                continue  # a size query (getWorkspaceSize's null workspace): it returns before it carves
            judged += 1
            if caller.usr == e.fn.usr:
                if j >= len(c.args) or not _own_size(c.args[j]):
                    return False
                continue
            k = c.arg_params[j] if j < len(c.arg_params) else -1
            if k < 0:
                return False
            via = [x for x in caller.calls
                   if x.kind == "call" and (x is c or getattr(index.resolve_call(x, caller), "usr", None) == target.usr)]
            if not ok(caller, k, path | {target.usr}, via):
                return False
        return judged > 0  # (reached only through size queries: nothing here says what reaches it otherwise)

    return ok(fn, call.over_param, frozenset(), [call])


def from_creator(index, e: Entry) -> bool:
    """The walk starts at a creator method: a data type there comes from the fields or the serialized blob (a
    model's input), not from TensorRT's format negotiation, so no dispatch branch is ruled out."""
    names = index.__dict__.get("_trtlint_creator_names")
    if names is None:
        names = index.__dict__["_trtlint_creator_names"] = frozenset(c.cls.name for c in index.creators)
    return e.plugin in names


def _dead_rethrow(index, fn: CppFunction, call: Call) -> bool:
    """A bare ``throw;`` rethrows what a try block of ``fn`` threw: it cannot throw when nothing in ``fn``'s try
    blocks can (no throw, no throwing macro or API, no call into a project function). ``catch (...) { cleanup;
    throw; }`` around library calls that never throw is not a throw site."""
    if call.kind != "throw" or not call.args or call.args[0] != "(rethrow)":
        return False
    for c, beh, _unknown in _body(index, fn):
        if not c.in_try or c is call:
            continue
        if c.kind == "throw" or (beh is not None and beh.behaviour == "throw"):
            return False
        if c.kind == "call" and beh is None and index.resolve_call(c, fn) is not None:
            return False
    return True


def _reaches(index, fn: CppFunction, behaviour, depth: int = 0, seen: Optional[set] = None) -> set:
    """What a project function does that ends its caller: "throw" / "exit", directly or in the project functions
    it calls (three calls deep); the helper a check macro expands to (`cudaFail(e, __FILE__, __LINE__)`, defined in
    another file, calling `exit`)."""
    seen = set() if seen is None else seen
    if fn.usr in seen or depth > 3:
        return set()
    seen.add(fn.usr)
    out = set()
    for c in fn.calls:
        b = "throw" if c.kind == "throw" else (behaviour(c).behaviour if behaviour(c) is not None else None)
        if b in ("throw", "exit"):
            out.add(b)
        elif c.kind == "call" and b is None:
            t = index.resolve_call(c, fn)
            if t is not None:
                out |= _reaches(index, t, behaviour, depth + 1, seen)
    return out


def _own_definition(m: Call, calls, behaviour, index=None) -> Optional[str]:
    """When the project defines the pack macro ``m`` and its expansion visibly does something else than the pack
    says: how the finding names it ("CUDA_CHECK as defined at common/macros.h:12, where it ends the process (a
    CUDA_CHECK elsewhere usually throws)").
    A definition whose expansion, as this program compiles it, visibly neither throws nor exits (its
    ``assert(0)`` compiled out under NDEBUG, say) decides too, when every call in it is understood (a project
    function, an operator, a CUDA library routine): it does neither.
    None: the pack decides (no visible definition, a call in the expansion nothing here can see into, or nothing
    in the expansion contradicts the pack)."""
    if m.defined_at is None:
        return None
    table = behaviour(m)
    seen = set()
    opaque = False
    for c in calls:
        if c.kind == "macro" or not _inside(c.span, m.span):
            continue
        b = "throw" if c.kind == "throw" else (behaviour(c).behaviour if behaviour(c) is not None else None)
        if b in ("throw", "exit"):
            seen.add(b)
        elif index is not None and c.kind == "call" and b is None:
            t = index.resolve_call(c)  # a project function the expansion calls: what it does, the macro does
            if t is not None:
                seen |= _reaches(index, t, behaviour)
            elif not _UNDERSTOOD.match(c.callee):
                opaque = True  # a function declared where the run cannot see (a missing header): it may throw
    d = m.defined_at
    if not seen:
        if opaque or index is None or table.behaviour not in ("throw", "exit"):
            return None
        return (f"{m.callee} as defined at {d.path}:{d.line}, where it neither throws nor ends the process (a "
                f"{m.callee} elsewhere usually {_DOES.get(table.behaviour, table.behaviour)})")
    if table.behaviour in seen:
        return None
    does = " and ".join(_DOES[b] for b in ("throw", "exit") if b in seen)
    return (f"{m.callee} as defined at {d.path}:{d.line}, where it {does} (a {m.callee} elsewhere usually "
            f"{_DOES.get(table.behaviour, table.behaviour)})")


_DOES = {"throw": "throws", "exit": "ends the process", "status": "returns a status"}
# callees in a macro's expansion that are understood without a definition: operators (`std::cerr << ...`), the
# standard library, and the CUDA libraries' C routines (they return a status, they do not throw or exit)
_UNDERSTOOD = re.compile(r"(?:operator\W|std::|(?:cuda|cu|cublas|cublasLt|cudnn|cufft|curand|cusparse|cusolver|nccl|nvrtc)"
                         r"[A-Z_])")


def _walk(index, starts: list[Entry], behaviour: str, honour_try: bool,
          stop: Optional[Callable[[tuple[CppFunction, ...], CppFunction], bool]] = None) -> Iterator[Escape]:
    """The walk both :func:`escapes` and :func:`escapes_by_method` make below ``starts``: every call that does
    ``behaviour`` outside a try (when ``honour_try``), each spelling location once, following the project
    calls whose behaviour the packs do not know. Not sites: a rethrow nothing in its try can feed, a map lookup
    after a membership test of its key, a throw in a data-type dispatch's branch for no accepted type, a throw
    only an index out of range raises, a throw only a null argument TensorRT never passes raises (:func:`null_argument`),
    and a call that never runs in the context its function is reached in
    (:func:`~trtlint.checks.hotpath._walk.body_contexts`, as the hot-path walk judges it: a helper called with a
    null workspace to compute its size returns before it carves the workspace, so what follows the return is not
    reached from that call). ``stop(chain, callee)``, when given, hears of every project callee (one called inside
    a try too) and says whether the walk stays out of it."""
    walked: list[tuple[Entry, CppFunction, tuple[CppFunction, ...], list]] = []
    sites: list[list[tuple[Call, Optional[BehaviourEntry], Optional[str]]]] = []
    functions = index.functions
    for e, fn, chain, follow in entry_bodies(index, starts):
        targets: list[Optional[CppFunction]] = [None] * len(fn.calls)
        found = []
        for step in _plan(index, fn, behaviour, honour_try):
            if step[0] == _FOLLOW:
                target = functions[step[2]]
                if stop is None and not _leads(index, target, behaviour, honour_try):
                    continue  # no site below it: nothing the walk reports is on a way through it
                if stop is None or not stop(chain, target):
                    follow.append(target)
                    if step[1] is not None:
                        targets[step[1]] = target
            elif step[0] == _SITE:
                call, beh = step[1], step[2]
                if behaviour == "throw" and ((_unsupported_dtype(call) and not from_creator(index, e))
                                             or null_argument(index, e, fn, call) or own_request(index, e, fn, call)):
                    continue
                found.append(step[1:])
            elif stop is not None:  # _IN_TRY
                stop(chain, functions[step[1]])  # a try in the caller cannot catch what leaves a noexcept callee
        walked.append((e, fn, chain, targets))
        sites.append(found)
    ctx = body_contexts(index, starts, walked)
    seen: set[tuple] = set()
    for (e, fn, chain, _targets), found in zip(walked, sites):
        here = ctx.get(fn.usr)
        if here is None:
            continue  # reached only through calls that never run (a size query's)
        for call, beh, unknown in found:
            if never_runs(call, here):
                continue
            key = (call.span.path, call.span.line, call.span.col, call.kind, call.callee)
            if key not in seen:
                seen.add(key)
                yield Escape(e, call, chain, beh, unknown)


_IN_TRY, _FOLLOW, _SITE = 0, 1, 2


def _recall(index, what: str, key: tuple, fn: CppFunction) -> tuple:
    """(memo, carry, value): the index's memo of ``what`` (``"plan"``, ``"leads"``), the editor session's carry (None
    outside the editor) and the value kept for ``key`` in either (None: in neither; one found in the carry is put
    in the memo)."""
    memo = index.__dict__.setdefault("_trtlint_escape_" + what, {})
    got = memo.get(key)
    carry = index.__dict__.get("_trtlint_carry")
    if got is None and carry is not None:
        got = carry.get(index, (what,) + key, fn)
        if got is not None:
            memo[key] = got
    return memo, carry, got


def _plan(index, fn: CppFunction, behaviour: str, honour_try: bool) -> tuple:
    """What :func:`_walk` reads of ``fn``'s body whatever the entry it is reached from, in call order: ``(_IN_TRY,
    usr)`` a project callee called inside a try (when ``honour_try``: only told to ``stop``), ``(_FOLLOW, position in
    fn.calls, usr)`` a project callee whose behaviour the packs do not know, ``(_SITE, call, behaviour, macro)`` a call
    that does ``behaviour`` and is no site for no entry's reason (:func:`_walk`; the entry's reasons are judged there).
    Kept on the index and, in the editor's session, from check to check while ``fn`` is as it was (and, when a
    macro's definition decides what its use does, every function below it: :func:`_own_definition`)."""
    key = (behaviour, honour_try, fn.usr)
    memo, carry, got = _recall(index, "plan", key, fn)
    if got is not None:
        return got
    at = {id(c): i for i, c in enumerate(fn.calls)}
    out: list[tuple] = []
    for call, beh, unknown in _body(index, fn):
        if honour_try and call.in_try:
            if call.kind == "call" and beh is None:
                target = index.resolve_call(call, fn)
                if target is not None:
                    out.append((_IN_TRY, target.usr))
            continue
        if (call.kind == "throw" and behaviour == "throw") or (beh is not None and beh.behaviour == behaviour):
            if not (call.guard == "error-path:" + UNREACHABLE or _dead_rethrow(index, fn, call)
                    or _guarded_lookup(fn, call) or (behaviour == "throw" and _index_check(call, beh))):
                out.append((_SITE, call, beh, unknown))
            continue
        if call.kind != "call" or beh is not None:
            continue
        target = index.resolve_call(call, fn)
        if target is not None:
            out.append((_FOLLOW, at.get(id(call)), target.usr))
    got = memo[key] = tuple(out)
    if carry is not None:
        deeper = any(c.kind == "macro" and c.defined_at is not None for c in fn.calls)
        carry.put(index, ("plan",) + key, fn, got, below(index, fn) if deeper else (fn.usr,))
    return got


def _leads(index, fn: CppFunction, behaviour: str, honour_try: bool) -> bool:
    """Whether a site of ``behaviour`` (a ``_SITE`` of :func:`_plan`, before the entry's own reasons) is in ``fn`` or
    below it, through the callees a walk follows, at any depth. A walk that only reports sites (no ``stop`` to tell
    of the callees) need not enter a function for which this is False: no way through it leads to a site, so the
    sites it reports, the chains and the depths it reaches them at, and the contexts of the bodies on the ways to
    them are the same without it. Kept on the index and, in the editor's session, from check to check while no
    function it looked at changed (for True, those on the way to the site it found), nor any function the plans it
    read depend on (:func:`_plan`: below a macro whose project definition decides what its use does)."""
    key = (behaviour, honour_try, fn.usr)
    memo, carry, got = _recall(index, "leads", key, fn)
    if got is not None:
        return got
    functions = index.functions
    seen = {fn.usr}
    deps: set[str] = set()  # besides ``seen``: what the plans read below a macro whose definition decides (_plan)
    todo = [fn]
    got = False
    while todo and not got:
        f = todo.pop()
        if carry is not None and any(c.kind == "macro" and c.defined_at is not None for c in f.calls):
            deps |= below(index, f)
        for step in _plan(index, f, behaviour, honour_try):
            if step[0] == _SITE:
                got = True
                break
            if step[0] == _FOLLOW and step[2] not in seen:
                seen.add(step[2])
                todo.append(functions[step[2]])
    memo[key] = got
    if carry is not None:
        carry.put(index, ("leads",) + key, fn, got, seen | deps)
    return got


def escapes(index, behaviour: str, honour_try: bool, noexcept_only: bool,
            start: Optional[Callable[[Entry], bool]] = None) -> Iterator[Escape]:
    """What ``behaviour`` ("throw" / "exit") reaches from plugin and creator methods, each site once (for the first
    entry reaching it); ``start``, when given, keeps only the entries it accepts."""
    starts = [e for e in entries(index, ("hot", "warm", "cold"), creators=True)
              if (not noexcept_only or e.fn.noexcept or e.fn.name.startswith("~")) and (start is None or start(e))]
    yield from _walk(index, starts, behaviour, honour_try)


def chain_text(esc: Escape, last: str) -> str:
    return " -> ".join([short(f) for f in esc.chain] + [last])


@dataclass(frozen=True)
class MethodEscapes:
    """Every escape below one interface method definition, for one finding per method (TRT204). ``entries``: the
    plugin or creator classes that use this definition (a base class's method serves each derived plugin).
    ``reached_from``: for a noexcept helper (no interface method) walked on its own, the interface methods whose
    walk reaches it; empty for an interface method."""

    entries: tuple[Entry, ...]
    escapes: tuple[Escape, ...]  # in walk order (the method's own body first), each call site once
    reached_from: tuple[CppFunction, ...] = ()

    @property
    def fn(self) -> CppFunction:
        return self.entries[0].fn


def _noexcept(fn: CppFunction) -> bool:
    return fn.noexcept or fn.name.startswith("~")  # a destructor is noexcept unless it says otherwise


def _walk_key(index, e: Entry) -> tuple:
    """What :func:`_walk` from the one entry ``e`` reads besides the functions below ``e.fn`` and the index's inputs
    (packs, settings): the entry itself (its plugin and class: :func:`null_argument`, :func:`own_request`), whether
    it is a creator's (:func:`from_creator`), and, for an ``enqueue``, whether TensorRT hands it a workspace (the
    root context of :func:`~trtlint.checks.hotpath._walk.body_contexts`: its lifecycle details and its class's
    ``getWorkspaceSize``)."""
    ws: Optional[tuple] = None
    if e.fn.name == "enqueue":
        md = index.lifecycle.get(e.fn.usr)
        p = md.workspace_param if md is not None else None
        ws = (p, p is not None and workspace_given(index, e.qualname))
    return (e.plugin, e.temperature, e.qualname, e.fn.usr, from_creator(index, e), ws)


def escapes_by_method(index, behaviour: str, honour_try: bool, noexcept_only: bool) -> list[MethodEscapes]:
    """Like :func:`escapes`, grouped by the interface method definition they escape from. Each method is walked
    on its own (a helper two methods call counts for both: each needs its own try), and a call site counts
    once per method however often a macro expands it (same spelling location, kind and callee).

    With ``noexcept_only``, a walk for "throw" stays out of a noexcept callee: nothing is thrown out of one
    (std::terminate runs at its boundary, and no try above it helps), so what throws inside it belongs to the
    callee, where the fix goes. A callee that is an interface method is walked as one already; a noexcept helper
    is walked on its own, as a group of its own whose ``reached_from`` names the interface methods reaching it
    (through other noexcept helpers too)."""
    starts = [e for e in entries(index, ("hot", "warm", "cold"), creators=True)
              if not noexcept_only or _noexcept(e.fn)]
    by_fn: dict[str, list[Entry]] = {}
    for e in starts:
        group = by_fn.setdefault(e.fn.usr, [])
        if all(x.plugin != e.plugin for x in group):
            group.append(e)
    barrier = noexcept_only and behaviour == "throw"
    helpers: dict[str, tuple[Entry, list[CppFunction]]] = {}  # usr -> (its walk's entry, the methods reaching it)
    todo: list[str] = []

    carry = index.__dict__.get("_trtlint_carry")

    def walk(group: list[Entry], roots: tuple[CppFunction, ...]) -> list[Escape]:
        stopped: list[CppFunction] = []  # the noexcept callees the walk stayed out of, in order

        def stop(chain, callee: CppFunction) -> bool:
            if not _noexcept(callee):
                return False
            stopped.append(callee)
            if callee.usr not in by_fn:
                if callee.usr not in helpers:
                    first = group[0]
                    helpers[callee.usr] = (Entry(first.plugin, callee, first.temperature), [])
                    todo.append(callee.usr)
                reach = helpers[callee.usr][1]
                reach.extend(r for r in roots if all(r.usr != x.usr for x in reach))
            return True

        first = group[0]
        key = None
        if carry is not None:
            # in the editor's session, kept from check to check while no function below the method changed: the
            # walk reads the bodies below it and, besides, only what this key holds (:func:`_walk_key`)
            key = ("escape", behaviour, honour_try, barrier) + _walk_key(index, first)
            kept = carry.get(index, key, first.fn)
            if kept is not None:
                found, callees = kept
                for callee in callees:  # what the walk told ``stop`` of, told again (the helpers it registers)
                    stop((), callee)
                return found
        found = list(_walk(index, [first], behaviour, honour_try, stop if barrier else None))
        if key is not None:
            carry.put(index, key, first.fn, (found, tuple(stopped)), below(index, first.fn))
        return found

    out = []
    for group in by_fn.values():
        found = walk(group, (group[0].fn,))
        if found:
            out.append(MethodEscapes(tuple(group), tuple(found)))
    found_in: dict[str, list[Escape]] = {}
    while todo:
        usr = todo.pop(0)
        entry, reach = helpers[usr]
        found_in[usr] = walk([entry], tuple(reach))
    for usr, found in found_in.items():
        if found:
            entry, reach = helpers[usr]
            out.append(MethodEscapes((entry,), tuple(found), tuple(reach)))
    return out
