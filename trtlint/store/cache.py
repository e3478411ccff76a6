"""Per-file fact cache in ``.trtlint_cache/``.

An entry is keyed by the file's content digest, its frontend's VERSION, the facts schema version and the
extraction settings. A C++ entry also records the digests of the project headers the translation unit
included; it is used only while every one of them is unchanged (editing a header re-extracts its includers).
The directory carries its own ``.gitignore`` (``*``) so it never shows up as a change in the project.
Writes are atomic (temp file + rename); a corrupt entry is a miss.

Entries are pickles (a warm run loads ~100k fact objects: the C unpickler is several times faster than JSON
with an object hook), read with a restricted unpickler that resolves only the fact dataclasses of
:mod:`trtlint.base.facts` and refuses every other global: a planted cache file cannot make trtlint call anything
(the "restricting globals" recipe of the ``pickle`` documentation).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from trtlint.base import safeio
from trtlint.base import envvars
from trtlint.base.digest import DIGEST_NAME
from trtlint.base.unpickle import safe_loads
from trtlint.base.span import FACTS_SCHEMA_VERSION
from trtlint.frontends import ExtractContext, SourceFile

if TYPE_CHECKING:  # pragma: no cover - loaded with the first entry (a warm run the run memo answers loads none)
    from trtlint.base.facts import FileFacts

CACHE_DIR = ".trtlint_cache"
_FORMAT = "p1"  # entry format: restricted pickle




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
    if src.flags:  # the include dirs and defines of the CMake target compiling it
        skip += "\0flags:" + "\n".join(src.flags)
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
        # id of each FileFacts this run took from an entry or stored in one -> (entry key, its deps): what the
        # facts are a function of (pipeline.rulecache compares them with the last run's)
        self.origin: dict[int, tuple] = {}

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
            data = safe_loads(safeio.read_bytes(p, limit=safeio.CACHE_LIMIT))
            if not isinstance(data, dict):
                raise ValueError("not an entry")
            deps = data.get("deps", {})
            if any(digests.get(rel) != d for rel, d in deps.items()):
                return None
            ff = data["facts"]
            from trtlint.base.facts import FileFacts

            if not isinstance(ff, FileFacts):
                raise ValueError("not facts")
        except (OSError, ValueError, KeyError, TypeError, AttributeError, EOFError, IndexError, pickle.UnpicklingError,
                MemoryError, RecursionError):
            return None
        self.origin[id(ff)] = (p.stem, _deps_of(deps))
        return ff

    def note_stored(self, src: SourceFile, facts: FileFacts, digests: dict[str, str]) -> None:
        """``facts`` were stored in the entry of ``src`` (by a worker or :meth:`put`): remember where from."""
        self.origin[id(facts)] = (self._key(src), _deps_of({rel: digests.get(rel) for rel in facts.includes}))

    def load_entry(self, key: str, deps: tuple) -> Optional[FileFacts]:
        """The facts of the entry ``key`` if its deps are still ``deps`` (an entry is rewritten under the same key
        when a header it includes changed), else None."""
        if not re.fullmatch(r"[0-9a-f]{64}", key):
            return None
        try:
            data = safe_loads(safeio.read_bytes(self._path(key), limit=safeio.CACHE_LIMIT))
            from trtlint.base.facts import FileFacts

            if (not isinstance(data, dict) or _deps_of(data.get("deps", {})) != deps
                    or not isinstance(data.get("facts"), FileFacts)):
                return None
            return data["facts"]
        except Exception:  # noqa: BLE001 - missing, corrupt or planted: unknown
            return None

    def put(self, src: SourceFile, facts: FileFacts, digests: dict[str, str]) -> None:
        if not self.enabled:
            return
        w = self.writer(digests)
        if w is None or not w.put(src, facts):
            self.enabled = False  # a read-only tree: run on without the cache
        else:
            self.note_stored(src, facts, digests)

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


def _deps_of(deps: dict) -> tuple:
    return tuple(sorted((str(k), str(v)) for k, v in deps.items())) if isinstance(deps, dict) else ()


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

    def put(self, src: SourceFile, facts: FileFacts, memo: Optional[dict] = None) -> bool:
        """Store the facts (and the C++ frontend's per-function memo of the unit: frontends/cpp/fnmemo.py, with a
        pointer from the unit's path to this entry); False when the cache directory cannot be written."""
        deps = {rel: self.digests.get(rel) for rel in facts.includes}
        data = {"deps": deps, "facts": facts}
        if memo is not None:
            data["fnmemo"] = memo
        payload = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
        key = _key(src, self.versions, self.ctx_keys)
        p = _entry_path(self.dir, key)
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
            if memo is not None:
                self._point(src, key)
        except OSError:
            return False
        return True

    def _memo_pointer(self, rel: str) -> Path:
        return self.dir / "fnmemo" / (hashlib.sha256(rel.encode("utf-8", "surrogateescape")).hexdigest()[:40] + ".json")

    def _point(self, src: SourceFile, key: str) -> None:
        """The unit's last entry with a memo (one small file per unit path: the memo's store is bounded by the units)."""
        p = self._memo_pointer(src.rel)
        if p.parent not in self._made:
            p.parent.mkdir(parents=True, exist_ok=True)
            self._made.add(p.parent)
        tmp = p.parent / f".tmp-{os.getpid()}-{p.name}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"entry": key, "version": self.versions.get(src.kind, "0"), "ctx": self.ctx_keys[0]}, fh)
        os.replace(tmp, p)

    def load_memo(self, rel: str, kind: str) -> Optional[tuple]:
        """(the facts, the per-function memo) of the unit's last entry that holds one, made by this frontend version in
        this C++ context; None otherwise (the frontend checks the rest: fnmemo.begin)."""
        try:
            ptr = json.loads(safeio.read_bytes(self._memo_pointer(rel), limit=4096))
            if (not isinstance(ptr, dict) or ptr.get("version") != self.versions.get(kind, "0")
                    or ptr.get("ctx") != self.ctx_keys[0] or not re.fullmatch(r"[0-9a-f]{64}", str(ptr.get("entry")))):
                return None
            data = safe_loads(safeio.read_bytes(_entry_path(self.dir, ptr["entry"]), limit=safeio.CACHE_LIMIT))
            from trtlint.base.facts import FileFacts

            if not isinstance(data, dict) or not isinstance(data.get("facts"), FileFacts) or data["facts"].path != rel \
                    or not isinstance(data.get("fnmemo"), dict):
                return None
            return data["facts"], data["fnmemo"]
        except Exception:  # noqa: BLE001 - missing, corrupt or planted: no memo
            return None


# `trtlint clean` -------------------------------------------------------------------------------------------

# what trtlint writes in a PCH directory (frontends/cpp/pch.py): <key>.pch/.json/.h/.lock, <key>.<pid>.tmp and
# <key>.<pid>.json.tmp, the key 32 hex digits; nothing else there is removed
_PCH_FILE = re.compile(r"[0-9a-f]{32}(?:\.\d+)?\.(?:pch|json|h|lock|tmp|json\.tmp)")


@dataclass
class Removed:
    """What :func:`remove_project_cache` / :func:`remove_user_cache` removed from one directory."""

    path: Path
    files: int = 0
    size: int = 0  # bytes (the files' apparent size)
    whole: bool = False  # the directory itself is gone
    kept: int = 0  # files left in it: not trtlint's
    errors: list = field(default_factory=list)


def _tree_size(d: Path) -> tuple[int, int]:
    """(files, bytes) under ``d``, not following symbolic links."""
    files = size = 0
    for dirpath, _dirs, names in os.walk(d):
        for n in names:
            try:
                size += os.lstat(os.path.join(dirpath, n)).st_size
                files += 1
            except OSError:
                pass
    return files, size


def remove_project_cache(root: Path) -> Optional[Removed]:
    """Remove ``root/.trtlint_cache/``; None when there is none."""
    d = Path(root) / CACHE_DIR
    if d.is_symlink() or (d.exists() and not d.is_dir()):
        return Removed(d, errors=[f"{d}: not a directory trtlint made (a link or a file); left alone"])
    if not d.is_dir():
        return None
    files, size = _tree_size(d)
    r = Removed(d, files, size)
    try:
        shutil.rmtree(d)
    except OSError as e:
        r.errors.append(f"{e.filename or d}: {e.strerror or e}")
    r.whole = not d.exists()
    if not r.whole:
        left = _tree_size(d)
        r.files, r.size = files - left[0], size - left[1]
        r.errors = r.errors or [f"{d}: could not be removed"]
    return r


_PACKS_FILE = re.compile(r"(?:\.tmp-.*|[0-9a-f]{8,64}(?:-profiles)?)\.json")  # the packs, and their profiles alone


def remove_user_cache() -> list[Removed]:
    """Remove the per-user cache (the parsed rule packs, and the shared precompiled headers): in each of the directories that may hold
    it (:func:`trtlint.frontends.cpp.pch_dir_candidates`), the files trtlint wrote; then the directory and an
    emptied ``trtlint/`` above it (a ``$TRTLINT_PCH_DIR`` the user named is emptied, not removed). One entry
    per directory that exists."""
    from trtlint.config.packs import packs_cache_dir
    from trtlint.frontends.cpp import pch_dir_candidates

    out: list[Removed] = []
    seen: set = set()
    named = envvars.text("TRTLINT_PCH_DIR")
    packs = packs_cache_dir()
    if packs is not None and packs.is_dir():
        # the parsed shipped rule packs (config.packs): only the files trtlint wrote there, a digest's JSON
        for f in sorted(packs.iterdir()):
            try:
                if _PACKS_FILE.fullmatch(f.name) and f.is_file() and not f.is_symlink():
                    f.unlink()
            except OSError:
                pass
        try:
            packs.rmdir()
        except OSError:
            pass
    for d in pch_dir_candidates():
        if not d.is_dir() or d.resolve() in seen:
            continue
        seen.add(d.resolve())
        r = Removed(d)
        for f in sorted(d.iterdir()):
            try:
                st = f.lstat()
                if _PCH_FILE.fullmatch(f.name) and not stat.S_ISDIR(st.st_mode):
                    f.unlink()
                    r.files += 1
                    r.size += st.st_size
                else:
                    r.kept += 1
            except OSError as e:
                r.errors.append(f"{f}: {e.strerror}")
        if not r.kept and not r.errors and not (named and d == Path(named)):
            for empty in (d, d.parent) if d.parent.name == "trtlint" else (d,):
                try:
                    empty.rmdir()
                except OSError:
                    break
                r.path, r.whole = empty, True  # (the topmost directory that went)
        out.append(r)
    return out


def human_size(n: int) -> str:
    """``1.5 MiB``: bytes in binary units."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover - unreachable


# -- JSON side files of the cache (stats.json, globs.json, reach.json, expansion memos) -------------------------


def load_stats(path: Path) -> tuple[dict, int]:
    """The last run's ``rel -> (size, mtime_ns, inode, digest)`` and the time before which they are trusted."""
    try:
        data = json.loads(safeio.read_text(path, limit=safeio.CACHE_LIMIT, errors="strict"))
        if data.get("digest") != DIGEST_NAME:  # made with another digest function: hash every file again
            return {}, 0
        files = {
            k: tuple(v)
            for k, v in data["files"].items()
            if isinstance(v, list) and len(v) == 4 and isinstance(v[3], str)
        }
        return files, int(data["trust_before_ns"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return {}, 0


def load_json_dict(path: Path) -> dict:
    try:
        data = json.loads(safeio.read_text(path, limit=safeio.CACHE_LIMIT, errors="strict"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def save_glob_memos(path: Path, memos: Optional[dict], before: int) -> None:
    """Keep the include/exclude pattern answers (discover.py) when new ones were added; at most a few
    pattern sets, and a pattern set's answers only for paths of a bounded count (the newest run's)."""
    if memos is None:
        return
    clean = {k: v for k, v in memos.items() if isinstance(v, dict) and all(isinstance(x, bool) for x in v.values())}
    if sum(len(v) for v in clean.values()) == before and len(clean) == len(memos):
        return
    if len(clean) > 8 or sum(len(v) for v in clean.values()) > 200_000:
        clean = {}
    write_json(path, clean)


def write_json(path: Path, data) -> None:
    """Atomic write of a cache side file; a read-only tree just goes without."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass
