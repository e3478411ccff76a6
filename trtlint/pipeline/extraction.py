"""The cache-and-pool front of extraction: files are looked up in the fact cache, the others are parsed by one
worker pool (started when the first file needs parsing; see :mod:`trtlint.pipeline.workers`); what was parsed is
stored in the cache.

Every file that needs parsing goes to the pool, whatever its kind, the project's size and ``-j`` (with ``-j 1``:
one worker that parses the files one after the other): this process never runs a parser on project input, so
each parse is under the pool's time and memory limits, and a parser that crashes (a segfault in native code)
costs its file a TRT001, not the run. A warm run (every file in the cache) starts no worker at all. A worker
costs a fork and the facts' pickling: its start, one small file and its stop ~44 ms (~5 ms for the file in
process); a cold run of a 3-file Python project with ``-j 1`` takes the same CPU time as in process (0.78 s;
docs/robustness.md, "Parsing under limits").

The limits a parse runs under travel as one :class:`ExtractLimits` value, never as module settings.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from trtlint.store.cache import cacheable
from trtlint.config.settings import Settings
from ..frontends import ExtractContext, SourceFile
from .extract import FRONTENDS

if TYPE_CHECKING:  # pragma: no cover - imported by the extraction itself (a warm run only reads ExtractLimits)
    from trtlint.base.facts import FileFacts


@dataclass(frozen=True)
class ExtractLimits:
    """What one file's extraction runs under: ``file_timeout`` seconds (0: no limit), ``worker_memory`` MiB a
    worker may hold (0: no limit), and the multiprocessing context of the pool (None: the platform default;
    the LSP server gives "forkserver": it starts the pool from a worker thread, and forking a multi-threaded
    process can deadlock)."""

    file_timeout: float = 0.0
    worker_memory: float = 0.0
    mp_context: Any = None

    @classmethod
    def of(cls, settings: Settings, mp_context: Any = None) -> "ExtractLimits":
        """The limits the file-timeout and worker-memory settings give."""
        return cls(
            file_timeout=float(getattr(settings, "file_timeout", 0) or 0),
            worker_memory=float(getattr(settings, "worker_memory", 0) or 0),
            mp_context=mp_context,
        )


def heavy_first(files: list[SourceFile]) -> tuple[list[SourceFile], list[int]]:
    """C++ units before other files, larger first (the longest parses start first); and the permutation."""
    def size(f: SourceFile) -> int:
        try:
            return f.path.stat().st_size
        except OSError:
            return 0

    order = sorted(range(len(files)), key=lambda i: (files[i].kind not in ("cpp", "cuda", "header"), -size(files[i]), i))
    return [files[i] for i in order], order


class Handle:
    """Files submitted together (:meth:`Extraction.submit`): their facts by position, the positions still to
    load from the cache, those being parsed, and the worker batches they are in."""

    __slots__ = ("files", "priority", "out", "cached", "todo", "batches")

    def __init__(self, files: list[SourceFile], priority: int) -> None:
        self.files = files
        self.priority = priority
        self.out: list[Optional[FileFacts]] = [None] * len(files)
        self.cached: list[int] = []
        self.todo: list[int] = []
        self.batches: list = []


class Extraction:
    """Cached extraction with one worker pool, started when the first file needs parsing: ``submit`` looks
    files up in the fact cache and queues the rest; ``collect`` waits for them and stores them in the cache."""

    def __init__(self, ctx: ExtractContext, jobs: int, cache, digests: dict, done: list, tick,
                 limits: ExtractLimits = ExtractLimits()) -> None:
        self.ctx, self.jobs, self.cache, self.digests, self.done, self.tick = ctx, jobs, cache, digests, done, tick
        self.limits = limits
        self.pool = None
        self._serviced = 0.0
        self.parsed = 0
        self.parsed_kinds: dict[str, int] = {}

    def submit(self, files: list[SourceFile], priority: int, defer: bool = False) -> "Handle":
        """Files without a cache entry are handed to the workers before the cached ones are loaded, so an
        edited file's parse overlaps the loading of the rest; with ``defer`` the cached ones are loaded only
        by :meth:`load` (or :meth:`collect`), so that more urgent files can be queued first."""
        h = Handle(files, priority)
        for i, f in enumerate(files):
            if f.kind not in FRONTENDS:  # no frontend yet (e.g. ONNX models, YAML): nothing to extract
                from trtlint.base.facts import FileFacts

                h.out[i] = FileFacts(path=f.rel, kind=f.kind, digest=f.digest)
            elif self.cache and self.cache.has(f):
                h.cached.append(i)
            else:
                h.todo.append(i)
        if h.todo:
            h.batches.append(self._queue(files, list(h.todo), priority))
        if not defer:
            self.load(h)
        return h

    def load(self, h: "Handle") -> None:
        """Load the handle's cached files; an entry that misses (a header it includes changed, an unreadable
        entry) is queued for parsing."""
        late = []
        for i in h.cached:
            hit = self.cache.get(h.files[i], self.digests)
            if hit is not None:
                h.out[i] = hit
            else:
                late.append(i)
        h.cached = []
        if late:
            h.todo += late
            h.batches.append(self._queue(h.files, late, h.priority))

    def _queue(self, files: list[SourceFile], todo: list[int], priority: int):
        """Hand ``files[i] for i in todo`` to the pool (started on first use): (batch, order)."""
        self.done[1] += len(todo)
        self._start_pool()
        heavy, perm = heavy_first([files[i] for i in todo])
        return self.pool.submit(heavy, priority), [todo[k] for k in perm]

    def _start_pool(self) -> None:
        if self.pool is None:
            from .workers import Pool

            writer = self.cache.writer(self.digests) if self.cache else None
            lim = self.limits
            self.pool = Pool(self.jobs, self.ctx, lim.file_timeout, lim.worker_memory, lim.mp_context, self.tick, writer)

    def warm(self, kind: str, src: Optional[SourceFile] = None) -> None:
        """Start a worker ahead of the files of ``kind`` that will need parsing and let it get ready (see
        ``Pool.warm``): a C++ unit's parse is then not preceded by the import of its frontend and the loading of
        libclang and of the shared PCH."""
        self._start_pool()
        self.pool.warm(kind, src)

    def set_context(self, ctx: ExtractContext) -> None:
        """Files queued from now on are extracted and cached with ``ctx`` (see Pool.set_context)."""
        self.ctx = ctx
        if self.cache:
            self.cache.set_context(ctx)
        if self.pool is not None:
            self.pool.set_context(ctx)

    def service(self) -> None:
        """Keep the workers fed while this process scans files: at most every few milliseconds, take their
        answers and hand out more files (see Pool.service)."""
        if self.pool is not None:
            now = time.perf_counter()
            if now - self._serviced > 0.005:
                self._serviced = now
                self.pool.service()

    def collect(self, handle: "Handle") -> list[FileFacts]:
        self.load(handle)
        files, out, todo = handle.files, handle.out, handle.todo
        stored: set[int] = set()  # positions whose facts a worker already put in the cache
        for batch, order in handle.batches:
            in_batch: set[int] = set()
            for i, ff in zip(order, self.pool.collect(batch, in_batch)):
                out[i] = ff
            stored.update(order[k] for k in in_batch)
        self.parsed += len(todo)
        for i in todo:
            f, ff = files[i], out[i]
            self.parsed_kinds[f.kind] = self.parsed_kinds.get(f.kind, 0) + 1
            if self.cache and i not in stored and cacheable(ff):
                self.cache.put(f, ff, self.digests)
            elif self.cache and i in stored:
                self.cache.note_stored(f, ff, self.digests)
        return [x for x in out if x is not None]

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None

