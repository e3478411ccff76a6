"""Lazy call-graph expansion and its memo. Only the C++ units that can hold a plugin fact are parsed eagerly;
the others are parsed, round by round, when the hot path below a plugin's methods calls a function that no
parsed file defines and a text search finds a file that may define it. Which files an expansion parsed depends
only on the C++ sources and the settings, so a warm run with the same inputs takes the list from a memo in the
cache instead of searching again.
"""

from __future__ import annotations

import functools
import json
import os
import re

from trtlint.base import safeio
from trtlint.store.cache import write_json
from trtlint.store.scancache import code_text
from ..frontends import SourceFile
from trtlint.index.project_index import ProjectIndex, scope_fact_sets, scope_of
from .extract import frontend_versions

_EXTERNAL = re.compile(r"^(?:std::|thrust::|cub::|__|operator\b)")


_TEST_PATH = re.compile(r"(^|/)(tests?|unittests?|testing)/|(^|/)[^/]*(_test|Tests?|_tests?)\.[^/]+$|(^|/)test_[^/]+$")


# `name(`, `ns::Cls::name(` and `Cls<T>::name(` (a class template's member defined out of line): template
# arguments between the parts (one level of nesting) are skipped
_TARGS = rb"<(?:[^<>;{}()]|<[^<>;{}()]*+>)*+>"
_CALLISH = re.compile(rb"\b([A-Za-z_]\w*+(?:\s*+(?:" + _TARGS + rb"\s*+)?::\s*+[A-Za-z_]\w*+)*+)\s*+\(")
_TARGS_RE = re.compile(_TARGS)
_MAX_SEARCH_BYTES = 1 << 20  # larger C++ files are generated data (cubin arrays): never searched for definitions


def _callish_names(data: bytes) -> frozenset:
    """Every ``name(`` and ``Cls::name(`` written in a file: one linear scan, then set look-ups per round. The
    scan skips a large file's arrays of constants (:func:`trtlint.store.scancache.code_text`: no name is written
    there): Edge-LLM's cubin sources, ~70 MB under the 1 MB limit, were most of a cold run's search (1.0 -> 0.1 s)."""
    out = set()
    for name in set(_CALLISH.findall(code_text(data))):  # each spelling once
        parts = [p.strip() for p in _TARGS_RE.sub(b"", name).decode("ascii", "replace").split("::")]
        out.add(parts[-1])
        if len(parts) >= 2:
            out.add(parts[-2] + "::" + parts[-1])
    return frozenset(out)


_PARAMS = rb"\((?:[^;{}()]|\((?:[^;{}()]|\([^;{}()]*\))*\))*\)"
# bumped when what the expansion searches for changes (its memo of files to parse is keyed on it)
_EXPANSION_VERSION = "8"


@functools.lru_cache(maxsize=4096)
def _definition_re(name: str) -> "re.Pattern[bytes]":
    """``name(...) {``: a definition; the parameter list (parentheses balanced to three levels) is followed by a
    body, not by ';'. Balancing keeps calls such as ``if (name(x))\n{`` and prose in comments out."""
    return re.compile(
        rb"\b" + re.escape(name).encode() + rb"\s*" + _PARAMS + rb"\s*"
        rb"(?:const\s*)?(?:noexcept\s*(?:\([^)]*\)\s*)?)?(?:->\s*[\w:<>,\s\*&]+)?\{"
    )


def _expansion_roots(idx) -> list:
    """The functions the call-graph rules start from: every method of every plugin and C++ creator class
    (hot-path rules start from enqueue and the warm methods, TRT204/TRT205/TRT304 from all of them)."""
    out, seen = [], set()
    classes = list(idx.plugins) + [c for c in idx.creators if c.cls.family.startswith("creator_")]
    for info in classes:
        for q in idx.ancestors(info.qualname):
            for fn in idx.methods.get(q, ()):
                if fn.usr not in seen:
                    seen.add(fn.usr)
                    out.append(fn)
    return out


def _round_indexes(facts: list, scopes: tuple, root, profile, packs, settings) -> list:
    """The indexes a round resolves calls in, each with the roots it owns: the whole project's for the plugins
    in no program, and, when the project holds several independent programs (``scopes``), each program's own
    (pipeline.check.scope_indexes sees the same facts), so a call resolves as the program's linker would: a
    same-named function of another program (another sample's helper) does not hide the program's own file."""
    whole = ProjectIndex.build(root, profile, packs, facts, settings)
    if len(scopes) < 2:
        return [(whole, _expansion_roots(whole))]
    out = [(whole, [fn for fn in _expansion_roots(whole) if not scope_of(fn.span.path, scopes)])]
    with_roots = {scope_of(fn.span.path, scopes) for fn in _expansion_roots(whole)}
    for s, (own, extra) in scope_fact_sets(facts, scopes).items():
        if s not in with_roots:
            continue
        idx = ProjectIndex.build(root, profile, packs, own + extra, settings)
        out.append((idx, [fn for fn in _expansion_roots(idx) if scope_of(fn.span.path, scopes) == s]))
    return out


def _expand_call_graph(
    facts, lazy: dict, texts: dict, extract_cached, root, profile, packs, settings, names_by_digest=None,
    service=None, scopes: tuple = (),
) -> list:
    """Parse, round by round, the lazily skipped C++ files that may define a function the hot path calls
    but no parsed file defines (in the caller's program, when the project holds several). Each round follows
    one more level of calls; at most max-call-depth rounds. ``service()`` is called between files searched, to
    keep the worker pool fed meanwhile."""
    added: list = []
    if not lazy:
        return added
    callish: dict[str, frozenset] = {}
    names_by_digest = names_by_digest if names_by_digest is not None else {}
    for _ in range(max(1, settings.max_call_depth)):
        methods: set[str] = set()
        free: set[str] = set()
        for idx, root_fn in ((i, fn) for i, fns in _round_indexes(list(facts) + added, scopes, root, profile, packs,
                                                                 settings) for fn in fns):
            for call, _chain in idx.walk_calls(root_fn):
                if call.kind not in ("call", "launch") or idx.resolve_call(call) is not None:
                    continue
                name = call.callee.split("<")[0]
                last = name.split("::")[-1]
                if not last or _EXTERNAL.match(name) or _EXTERNAL.match(last):
                    continue
                if packs.lookup("allocating", name) or packs.lookup("host_allocating", name) or packs.lookup("synchronizing", name):
                    continue
                if packs.lookup("functions", name) or packs.lookup("macros", name):
                    continue  # its behaviour is known (rules/cpp_behaviour.yaml)
                parts = name.split("::")
                # a method is defined out of line as Cls::name( ; a free function as name(...) {
                if len(parts) >= 2 and parts[-2][:1].isupper():
                    methods.add("::".join(parts[-2:]))
                else:
                    free.add(last)
        if not methods and not free:
            break
        cands = []
        for rel in sorted(lazy):
            # a plugin library never links a test's definitions: tests are not searched; nor is generated data
            if _TEST_PATH.search(rel):
                continue
            if service is not None:
                service()
            names = callish.get(rel)
            if names is None:
                data = texts.get(rel, b"")
                digest = lazy[rel].digest
                names = names_by_digest.get(digest)
                if names is None:
                    names = _callish_names(data) if len(data) <= _MAX_SEARCH_BYTES else frozenset()
                    names_by_digest[digest] = names
                callish[rel] = names
            if names.isdisjoint(methods) and names.isdisjoint(free):
                continue
            data = texts.get(rel, b"")
            if not names.isdisjoint(methods) or any(_definition_re(n).search(data) for n in free & names):
                cands.append(lazy.pop(rel))
        if not cands:
            break
        # every candidate of the round (a cap of 64 per round, with the rest pushed to later rounds, silently
        # left 1488 of a 2000-plugin project's kernel files unparsed once max-call-depth rounds were used up)
        added += extract_cached(cands)
    return added


def _call_structure(facts) -> bytes:
    """What the call-graph expansion reads of parsed files, without positions: classes, functions, calls."""
    import hashlib

    h = hashlib.sha256()
    for ff in sorted(facts, key=lambda x: x.path):
        if not ff.functions and not ff.classes:
            continue
        parts: list = [ff.path]
        parts += [(c.qualname, c.kind, c.family, c.bases, c.abstract) for c in ff.classes]
        for fn in ff.functions:
            parts.append((fn.usr, fn.qualname, fn.name, fn.cls))
            parts += [(c.callee, c.usr, c.kind) for c in fn.calls]
        h.update(repr(parts).encode())
    return h.digest()


def expand_with_memo(facts, lazy_facts, texts, extract_cached, cache, tus, disc, root, profile, packs, settings,
                      service=None, skips=None, scopes: tuple = ()) -> list:
    """The files the call-graph expansion parses depend only on the C++ sources and the settings: a warm run
    with the same inputs reuses the last run's list (kept in the cache) instead of searching again. The memo
    also keeps the headers each of them left to another unit (``skips``, filled by ``extract_cached``), for
    the next run's prefetch."""
    if cache is None:
        return _expand_call_graph(facts, lazy_facts, texts, extract_cached, root, profile, packs, settings,
                                  service=service, scopes=scopes)
    import hashlib

    h = hashlib.sha256(cache.ctx_key.encode())
    # the eagerly parsed files count by what the expansion reads of them (classes, functions, calls: no
    # positions), so an edit inside a plugin unit that leaves its calls alone keeps the memo; every other C++
    # file and header counts by content (it may be searched, or parsed by a round)
    h.update(_call_structure(facts))
    eager = {ff.path for ff in facts}
    for f in tus + [f for f in disc.files if f.kind == "header"]:
        if f.rel not in eager:
            h.update(f"{f.rel}\0{f.digest}\0".encode())
    h.update(repr(sorted(frontend_versions().items())).encode())
    h.update(str(settings.max_call_depth).encode())
    h.update(_EXPANSION_VERSION.encode())
    h.update(repr(sorted(scopes)).encode())
    memo = cache.dir / "expansion" / f"{h.hexdigest()[:32]}.json"
    try:
        known = json.loads(safeio.read_text(memo, limit=safeio.CACHE_LIMIT, errors="strict"))
    except (OSError, ValueError, RecursionError):
        known = None
    known = [k[0] for k in _memo_entries(known)] if isinstance(known, list) else None
    if known is not None and all(rel in lazy_facts for rel in known):
        got = extract_cached([lazy_facts[rel] for rel in known])
        if skips:
            write_json(memo, [[rel, list(skips.get(rel, ()))] for rel in known])
        else:
            try:
                os.utime(memo)  # the newest memo is the one the next run prefetches (last_expansion)
            except OSError:
                pass
        return got
    # the call-like names of each file, by content digest: a changed file is rescanned, the others are not
    names_path = cache.dir / "expansion" / f"names-{_EXPANSION_VERSION}.json"
    try:
        stored = json.loads(safeio.read_text(names_path, limit=safeio.CACHE_LIMIT, errors="strict"))
        names_by_digest = {d: frozenset(v) for d, v in stored.items()} if isinstance(stored, dict) else {}
    except (OSError, ValueError, TypeError, RecursionError):
        names_by_digest = {}
    before = len(names_by_digest)
    added = _expand_call_graph(
        facts, lazy_facts, texts, extract_cached, root, profile, packs, settings, names_by_digest, service, scopes
    )
    if len(names_by_digest) != before:
        live = {f.digest for f in tus}  # files that changed or went away drop out
        write_json(names_path, {d: sorted(v) for d, v in names_by_digest.items() if d in live})
    write_json(memo, [[rel, list((skips or {}).get(rel, ()))] for rel in sorted(ff.path for ff in added)])
    # keep the few newest memos (the states a developer flips between), not one per edit forever
    try:
        olds = sorted((p for p in memo.parent.glob("*.json") if not p.name.startswith("names")), key=lambda p: p.stat().st_mtime)
        for p in olds[:-8]:
            p.unlink()
    except OSError:
        pass
    return added


def _memo_entries(got: list) -> list[tuple[str, tuple[str, ...]]]:
    """(path, headers it left to another unit) of an expansion memo's entries; malformed ones are dropped."""
    out = []
    for e in got:
        if (isinstance(e, list) and len(e) == 2 and isinstance(e[0], str) and isinstance(e[1], list)
                and all(isinstance(h, str) for h in e[1])):
            out.append((e[0], tuple(e[1])))
    return out


def last_expansion(cache) -> list[tuple[str, tuple[str, ...]]]:
    """(path, skip set) of the files of the newest expansion memo (see :func:`expand_with_memo`), or none."""
    try:
        memos = [p for p in (cache.dir / "expansion").glob("*.json") if not p.name.startswith("names")]
        newest = max(memos, key=lambda p: p.stat().st_mtime_ns) if memos else None
        got = json.loads(safeio.read_text(newest, limit=safeio.CACHE_LIMIT, errors="strict")) if newest is not None else []
    except (OSError, ValueError, RecursionError):
        return []
    return _memo_entries(got) if isinstance(got, list) else []


class LazyTexts:
    """The bytes of the lazily skipped C++ files, read only when the call-graph expansion searches them
    (a memo miss); files over the search limit read as empty (they are never searched)."""

    def __init__(self, scans):
        self.scans = scans
        self.by_rel: dict[str, SourceFile] = {}
        self.data: dict[str, bytes] = {}

    def add(self, f: SourceFile) -> None:
        self.by_rel[f.rel] = f

    def get(self, rel: str, default: bytes = b"") -> bytes:
        if rel in self.data:
            return self.data[rel]
        f = self.by_rel.get(rel)
        if f is None:
            return default
        try:
            big = f.path.stat().st_size > _MAX_SEARCH_BYTES
        except OSError:
            big = True
        data = b"" if big else self.scans.read(f)
        self.data[rel] = data
        return data


