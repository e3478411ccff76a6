"""The rules' findings across ``trtlint check`` runs: the CLI's side of :class:`trtlint.checks.reads.RuleMemo`.

The editor's session keeps its project state (and the rule memo in it) in memory across edits. A command-line run
starts afresh, so after its check it stores the memo (``v1/rules.pkl``): each rule's findings per scope (before the
filter), the key of everything the rules read besides the facts, and for every file a *token* naming its facts:

* ``("entry", key, deps[, test_cases])``: the facts of the fact-cache entry ``key`` stored while the headers it
  includes had the digests ``deps`` (the fact cache's own premise: such facts are a function of that key and those
  digests), with the googletest cases the run's text scan gave the file;
* ``("plain", kind, digest, test_cases)``: a file with no fact but its kind (never parsed, or no frontend);
* ``None``: unknown (facts no entry holds, e.g. a parse that timed out).

The next run compares the tokens: for each file whose token changed, it takes the old facts back from the cache (the
entry, if it still holds the same deps) and :func:`~trtlint.checks.reads.changed_kinds` says which fact kinds
differ; a file added, removed or moved in the order counts as ``files``. A rule that reads none of the changed
kinds gives the stored findings (``RuleMemo.reusable``). Whatever is unknown (an old entry gone or rewritten, an
unknown token, a memo of other inputs) makes the whole check run, as without a memo; the findings are the same
either way (``tests/test_incremental.py``).

The key of the other inputs: the settings, the config files, profile, extraction context, rule packs and
trtlint's own files as in the run memo (:func:`trtlint.store.runmemo.key`, without the files' digests), and a
digest of the check inputs (suppressions, preview scans, TensorRT releases, scopes, config selectors and globs).
Only runs over the whole project (no paths, no ``report_only``) read or write it.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any, Optional

from trtlint.base import safeio
from trtlint.base.facts import FileFacts
from trtlint.base.unpickle import safe_loads
from trtlint.checks.reads import FILES, changed_kinds

_NAME = "rules.pkl"
_VERSION = 1


def _rest() -> tuple:
    """(name, default) of the compared fields of FileFacts besides its path, kind, digest and test cases."""
    import dataclasses

    out = []
    for f in dataclasses.fields(FileFacts):
        if f.compare and f.name not in ("path", "kind", "digest", "test_cases"):
            out.append((f.name, f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default))
    return tuple(out)


_REST = _rest()


def _plain(ff: FileFacts) -> bool:
    """Whether ``ff`` holds nothing but its path, kind, digest and test cases: what ``ff == FileFacts(path=ff.path,
    kind=ff.kind, digest=ff.digest, test_cases=ff.test_cases)`` says, field by field without making that object
    (~600 files a run on Edge-LLM)."""
    if type(ff) is not FileFacts:
        return False
    for name, default in _REST:
        if getattr(ff, name) != default:
            return False
    return True


def tokens(facts: dict[str, FileFacts], origin: dict[int, tuple]) -> list[tuple[str, Optional[tuple]]]:
    """(path, token) of every file, in the order the index takes the facts in."""
    out = []
    for rel, ff in facts.items():
        o = origin.get(id(ff))
        if o is not None:
            out.append((rel, ("entry", *o)))
        elif _plain(ff):
            out.append((rel, ("plain", ff.kind, ff.digest, ff.test_cases)))
        else:
            out.append((rel, None))
    return out


def _old_facts(rel: str, token: Optional[tuple], cache) -> Optional[FileFacts]:
    if not isinstance(token, tuple) or not token:
        return None
    if token[0] == "plain" and len(token) == 4:
        return FileFacts(path=rel, kind=token[1], digest=token[2], test_cases=token[3])
    if token[0] == "entry" and len(token) in (3, 4) and cache is not None:
        ff = cache.load_entry(token[1], token[2])
        if ff is not None and len(token) == 4:
            import dataclasses

            ff = dataclasses.replace(ff, test_cases=token[3])
        return ff if ff is not None and ff.path == rel else None
    return None


def last_facts(old: list, rels: Any, cache) -> dict[str, tuple]:
    """rel -> (token, facts or None) of the files ``rels`` from the ``old`` tokens (:func:`changes` takes them instead
    of loading them again): loaded while the workers parse."""
    return {rel: (tok, _old_facts(rel, tok, cache)) for rel, tok in old if rel in rels}


def changes(old: list, new: list, facts: dict[str, FileFacts], cache,
            loaded: Optional[dict[str, tuple]] = None) -> Optional[set[str]]:
    """The fact kinds that differ between the files of the ``old`` tokens and ``facts`` (``new``: their tokens);
    None when that cannot be known. ``loaded``: :func:`last_facts` of some files."""
    loaded = loaded or {}

    def prev_of(rel: str, tok: Optional[tuple]) -> Optional[FileFacts]:
        got = loaded.get(rel)
        return got[1] if got is not None and got[0] == tok else _old_facts(rel, tok, cache)

    # a file added or removed, or the same files in another order (the index takes them in that order)
    kinds = {FILES} if [r for r, _ in old] != [r for r, _ in new] else set()
    before = dict(old)
    for rel, tok in new:
        if rel in before and tok is not None and tok == before[rel]:
            continue
        if rel not in before:
            kinds |= changed_kinds(None, facts[rel])
            continue
        prev = prev_of(rel, before[rel])
        if prev is None:
            return None
        kinds |= changed_kinds(prev, facts[rel])
    for rel, tok in old:
        if rel not in facts:
            prev = prev_of(rel, tok)
            if prev is None:
                return None
            kinds |= changed_kinds(prev, None)
    return kinds


def inputs_key(env_key: str, snapshot: Any) -> Optional[tuple]:
    """The memo's key of the rules' inputs besides the facts (None: not known, e.g. an input that does not pickle)."""
    try:
        return (env_key, hashlib.sha256(pickle.dumps(snapshot, protocol=pickle.HIGHEST_PROTOCOL)).hexdigest())
    except Exception:  # noqa: BLE001 - an input that does not pickle: no key, no memo
        return None


def stored(cache_dir: Path) -> bool:
    """Whether a rule memo is stored (not whether it is valid, nor of this run's inputs: :func:`load`)."""
    return (cache_dir / _NAME).is_file()


def load(cache_dir: Path) -> Optional[dict]:
    try:
        data = safe_loads(safeio.read_bytes(cache_dir / _NAME, limit=safeio.CACHE_LIMIT), "the rule memo",
                          diagnostics=True)
    except Exception:  # noqa: BLE001 - missing, corrupt or planted: no memo
        return None
    if not (isinstance(data, dict) and data.get("version") == _VERSION and isinstance(data.get("tokens"), list)
            and isinstance(data.get("results"), dict) and isinstance(data.get("inputs"), tuple)):
        return None
    from trtlint.base.diagnostics import Diagnostic

    for k, v in data["results"].items():
        if not (isinstance(k, tuple) and len(k) == 2 and all(isinstance(x, str) for x in k) and isinstance(v, list)
                and all(isinstance(d, Diagnostic) for d in v)):
            return None
    if not all(isinstance(t, tuple) and len(t) == 2 and isinstance(t[0], str) for t in data["tokens"]):
        return None
    return data


def store(cache_dir: Path, inputs: tuple, toks: list, results: dict) -> None:
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=".tmp-", suffix=".pkl")
        with os.fdopen(fd, "wb") as fh:
            fh.write(pickle.dumps({"version": _VERSION, "inputs": inputs, "tokens": toks, "results": results},
                                  protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(tmp, cache_dir / _NAME)
    except Exception:  # noqa: BLE001 - a read-only tree, an unpicklable finding: the next run checks in full
        try:
            os.unlink(tmp)  # type: ignore[possibly-undefined]
        except Exception:  # noqa: BLE001
            pass
