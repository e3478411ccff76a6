"""Per-file fact cache in ``.trtlint_cache/``.

An entry is keyed by the file's content digest, its frontend's VERSION, the facts schema version and the
extraction settings. A C++ entry also records the digests of the project headers the translation unit
included; it is used only while every one of them is unchanged (editing a header re-extracts its includers).
The directory carries its own ``.gitignore`` (``*``) so it never shows up as a change in the project.
Writes are atomic (temp file + rename); a corrupt entry is a miss.

Entries are pickles (a warm run loads ~100k fact objects: the C unpickler is several times faster than JSON
with an object hook), read with a restricted unpickler that resolves only the fact dataclasses of
:mod:`trtlint.facts` and refuses every other global: a planted cache file cannot make trtlint call anything
(the "restricting globals" recipe of the ``pickle`` documentation).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
from pathlib import Path
from typing import Optional

from . import facts as _facts
from .facts import FACTS_SCHEMA_VERSION, FileFacts
from .frontends import ExtractContext, SourceFile

CACHE_DIR = ".trtlint_cache"
_FORMAT = "p1"  # entry format: restricted pickle


class _FactsUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):  # noqa: D401 - pickle API
        if module == "trtlint.facts":
            obj = getattr(_facts, name, None)
            if isinstance(obj, type) and obj.__module__ == "trtlint.facts" and hasattr(obj, "__dataclass_fields__"):
                return obj
        raise pickle.UnpicklingError(f"refusing global {module}.{name} in a cache entry")


def safe_loads(data: bytes):
    return _FactsUnpickler(io.BytesIO(data)).load()


_CPP_KINDS = frozenset(("cpp", "cuda", "header"))
_CPP_ONLY = frozenset(("include_dirs", "compile_commands", "defines"))  # context only the C++ frontend reads


def context_key(ctx: ExtractContext, cpp: bool = True) -> str:
    """A digest of the extraction context; with ``cpp=False``, of the part the other frontends read (a C++
    define or include directory does not make a Python file's entry miss)."""
    data = {k: (list(v) if isinstance(v, tuple) else v) for k, v in ctx.__dict__.items()
            if k != "root" and (cpp or k not in _CPP_ONLY)}
    data["root"] = str(ctx.root)
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


def context_keys(ctx: ExtractContext) -> tuple[str, str]:
    """(key of C++ entries, key of the others)."""
    return context_key(ctx), context_key(ctx, cpp=False)


def _key(src: SourceFile, versions: dict[str, str], ctx_keys: tuple[str, str]) -> str:
    v = versions.get(src.kind, "0")
    ctx_key = ctx_keys[0] if src.kind in _CPP_KINDS else ctx_keys[1]
    skip = ("\0skip:" + "\n".join(src.skip)) if src.skip else ""  # the headers it left to another unit
    return hashlib.sha256(f"{src.rel}\0{src.digest}\0{src.kind}\0{v}\0{ctx_key}\0{_FORMAT}{skip}".encode()).hexdigest()


def _entry_path(dir: Path, key: str) -> Path:
    return dir / key[:2] / f"{key}.pkl"


class FactCache:
    def __init__(self, root: Path, ctx: ExtractContext, versions: dict[str, str]):
        self.dir = root / CACHE_DIR / f"v{FACTS_SCHEMA_VERSION}"
        self.ctx_keys = context_keys(ctx)
        self.versions = versions
        self.hits = 0
        self.misses = 0
        self.enabled = True

    @property
    def ctx_key(self) -> str:
        """The key of the C++ context (entries of the other kinds use the part they read)."""
        return self.ctx_keys[0]

    def set_context(self, ctx: ExtractContext) -> None:
        """The context changed after the first files were queued (the feature macros found by the scan of the
        C++ files only change the C++ key): C++ entries from now on use the new one."""
        self.ctx_keys = context_keys(ctx)
        w = self.__dict__.get("_writer")
        if w is not None:
            w.ctx_keys = self.ctx_keys

    def _key(self, src: SourceFile) -> str:
        return _key(src, self.versions, self.ctx_keys)

    def _path(self, key: str) -> Path:
        return _entry_path(self.dir, key)

    def prefetch(self, files: list, digests: dict[str, str]) -> None:
        """Load these files' entries now (while the workers parse), for :meth:`get` to hand out later."""
        pre = self.__dict__.setdefault("_prefetched", {})
        for src in files:
            if (src.rel, src.digest, src.skip) not in pre:  # the skip set is part of the entry's key
                pre[(src.rel, src.digest, src.skip)] = self._load(src, digests)

    def has(self, src: SourceFile) -> bool:
        """Whether an entry for the file's content exists (a stat, nothing read); :meth:`get` may still miss
        (a changed header, a corrupt entry)."""
        return self._path(self._key(src)).is_file()

    def get(self, src: SourceFile, digests: dict[str, str]) -> Optional[FileFacts]:
        pre = self.__dict__.get("_prefetched")
        if pre is not None and (src.rel, src.digest, src.skip) in pre:
            ff = pre.pop((src.rel, src.digest, src.skip))
        else:
            ff = self._load(src, digests)
        if ff is None:
            self.misses += 1
        else:
            self.hits += 1
        return ff

    def _load(self, src: SourceFile, digests: dict[str, str]) -> Optional[FileFacts]:
        p = self._path(self._key(src))
        try:
            data = safe_loads(p.read_bytes())
            if not isinstance(data, dict):
                raise ValueError("not an entry")
            deps = data.get("deps", {})
            if any(digests.get(rel) != d for rel, d in deps.items()):
                return None
            ff = data["facts"]
            if not isinstance(ff, FileFacts):
                raise ValueError("not facts")
        except (OSError, ValueError, KeyError, TypeError, AttributeError, EOFError, IndexError, pickle.UnpicklingError, MemoryError):
            return None
        return ff

    def put(self, src: SourceFile, facts: FileFacts, digests: dict[str, str]) -> None:
        if not self.enabled:
            return
        w = self.writer(digests)
        if w is None or not w.put(src, facts):
            self.enabled = False  # a read-only tree: run on without the cache

    def writer(self, digests: dict[str, str]) -> Optional["EntryWriter"]:
        """What writes entries (a small picklable object: the pool's workers store the facts they extract
        themselves, in parallel, instead of the parent); None when the cache cannot be written."""
        w = self.__dict__.get("_writer")
        if w is not None and w.digests is digests:
            return w
        if not self.enabled:
            return None
        try:
            gi = self.dir.parent / ".gitignore"
            if not gi.exists():
                self.dir.mkdir(parents=True, exist_ok=True)
                gi.write_text("# created by trtlint\n*\n", encoding="utf-8")
        except OSError:
            self.enabled = False
            return None
        w = EntryWriter(self.dir, self.ctx_keys, self.versions, digests)
        self.__dict__["_writer"] = w
        return w


def cacheable(ff: FileFacts) -> bool:
    """Facts worth keeping: not those of a file that failed for a reason of this run (an internal error, a
    missing frontend, a time or memory limit)."""
    return not any(
        ("internal error" in p.message or "unavailable" in p.message or "timed out" in p.message
         or "not analysed" in p.message) for p in ff.problems
    )


class EntryWriter:
    """Writes cache entries (atomically: a private temporary file, then a rename). Made by
    :meth:`FactCache.writer` in the parent; pickled to (or inherited by) the extraction workers."""

    def __init__(self, dir: Path, ctx_keys: tuple[str, str], versions: dict[str, str], digests: dict[str, str]) -> None:
        self.dir, self.ctx_keys, self.versions, self.digests = dir, ctx_keys, versions, digests
        self._made: set = set()

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_made": set()}

    def put(self, src: SourceFile, facts: FileFacts) -> bool:
        """Store the facts; False when the cache directory cannot be written."""
        deps = {rel: self.digests.get(rel) for rel in facts.includes}
        payload = pickle.dumps({"deps": deps, "facts": facts}, protocol=pickle.HIGHEST_PROTOCOL)
        p = _entry_path(self.dir, _key(src, self.versions, self.ctx_keys))
        try:
            if p.parent not in self._made:  # each shard directory is made once per process, not once per entry
                p.parent.mkdir(parents=True, exist_ok=True)
                self._made.add(p.parent)
            # a private temporary name (this process, this entry), then an atomic rename
            tmp = p.parent / f".tmp-{os.getpid()}-{p.name}"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
            os.replace(tmp, p)
        except OSError:
            return False
        return True
