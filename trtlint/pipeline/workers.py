"""The extraction worker pool: one pool for a whole run, with a watchdog in the parent.

Every file a run parses is parsed here, whatever its kind, the project's size and ``-j`` (``-j 1``: one worker):
the parent never runs a parser on project input, so the limits below hold for every parse (a run whose files
are all in the cache starts no worker). ``check -`` re-extracts its buffer in a pool of one worker.

Why not ``concurrent.futures.ProcessPoolExecutor``: a worker stuck inside C code (a libclang parse of a
pathological file) cannot be interrupted by a signal handler, and an executor can neither kill one worker nor
bound its memory; a worker that dies takes the whole executor down (``BrokenProcessPool``). Here the parent
owns every worker and watches it:

* **time**: a file still running ``timeout + grace`` seconds after it was handed out gets its worker killed
  (SIGKILL) and becomes TRT001 "timed out after N s"; a fresh worker takes its place. Inside the worker the
  same limit is also a SIGALRM timer (:func:`trtlint.pipeline.extract.extract_limited`), which ends Python-level loops
  without a restart.
* **memory**: the resident size of every busy worker is read from ``/proc`` a few times a second; one over
  ``memory_limit`` MiB is killed and its file becomes TRT001 "needed more than N MiB".
* **death**: a worker that exits or crashes (a segfault in a parser, the kernel's OOM killer) turns its file
  into TRT001 naming the signal, and is replaced.

A costly parser import is paid once where it can be: a worker about to import one (libcst, ~0.3 s) says so
(``("load", module)``); a file that needs it and reaches another worker comes back (``("defer", module)``,
see :func:`trtlint.frontends.need`) and waits for the worker that has it. Only when nothing else is left to do
does a second worker take such a file and import the library too, so no core sits idle for it.

Small files (Python, CMake, YAML: a few milliseconds each) are sent one ahead: a worker busy with one already
holds the next, so it does not wait for the parent (which may be busy loading cached facts or planning the
call-graph expansion) between them. C++ units are never sent ahead nor queued behind: one that waits behind a
long parse could leave the other core idle at the end of the run.

Files are handed out one at a time, highest priority first (the run gives the C++ files on the call-graph
expansion's critical path priority over Python files), so both cores stay busy across the expansion rounds
and results come back in the order asked, whatever order they finish in.
"""

from __future__ import annotations

import heapq
import itertools
import os
import signal
import time
from typing import TYPE_CHECKING, Any, Callable, Optional

from ..frontends import ExtractContext, SourceFile

if TYPE_CHECKING:  # pragma: no cover
    from trtlint.base.facts import FileFacts

# The fact vocabulary is imported where a fact is made, not with the module: a run in which a C++ unit changed
# starts its first worker before the parent imports the vocabulary (``pipeline.run._start_early``), and the
# worker imports it while it waits for its first file

_POLL = 0.2  # seconds between memory readings of the busy workers
_PREPARE = 120.0  # seconds more a worker may take to import its frontend and build the shared PCH first
# before anything is measured: seconds a costly module's import takes (libcst: ~0.3 s on a 2-core machine) and
# seconds a file handed back for it takes (see Pool._pick)
_IMPORT_GUESS = 0.3
_CPP_KINDS = ("cpp", "cuda", "header")
_HANDED_BACK_GUESS = 0.05
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def problem_facts(src: SourceFile, message: str) -> FileFacts:
    from trtlint.base.facts import FileFacts, ParseProblem, Span

    return FileFacts(path=src.rel, kind=src.kind, digest=src.digest, problems=(ParseProblem(message, Span(src.rel, 1)),))


def _worker_main(conn: Any, ctx: ExtractContext, timeout: float, writer: Any = None) -> None:  # pragma: no cover - runs in a child
    try:
        _serve(conn, ctx, timeout, writer)
    except BaseException:  # noqa: BLE001 - e.g. out of memory while answering: no traceback on the user's
        os._exit(70)  # terminal; the parent sees the exit and reports the file it was on


def _serve(conn: Any, ctx: ExtractContext, timeout: float, writer: Any = None) -> None:  # pragma: no cover - runs in a child
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # the parent runs with the cyclic collector paused (pipeline.run.run) and a forked worker inherits that; the
    # worker's garbage is not the parent's: each parse leaves cycles (libclang's translation unit and its
    # cursors) that only the collector frees. Paused, a worker grew by the whole of every unit it parsed (2 GiB
    # after ~100 units) until worker-memory killed it on whatever file it had then (a Python file, TRT001). It is
    # switched on before the first file, not before a warm-up (Pool.warm), and what the worker holds then (the heap
    # the parent handed down, all of it in the youngest generation since the parent paused the collector, and the
    # frontend's modules) is moved out of its reach first (gc.freeze): the collector's first passes traversed all of
    # it, in the warm-up's imports (the fact vocabulary's: ~7 ms in the parent, ~15 ms here) or in the first parse
    import gc

    collecting = False
    from .. import frontends
    from trtlint.store.cache import cacheable
    from .extract import extract_limited, prepare, warm

    def on_load(module: str, seconds: Optional[float]) -> None:
        conn.send(("load", (module, seconds)))

    frontends.ON_LOAD = on_load
    if writer is not None:  # the C++ frontend's per-function memo lives in the cache entries (frontends/cpp/fnmemo.py)
        frontends.MEMO_LOAD = writer.load_memo
        frontends.MEMO_OUT = {}
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        if msg[0] == "ctx":  # the context changed (Pool.set_context): for the files sent after this message
            _tag, ctx, keys = msg
            if writer is not None:
                writer.ctx_keys = keys
            continue
        if msg[0] == "warm":  # Pool.warm: get ready for a file of this kind before it is sent
            _tag, kind, src = msg
            try:
                warm(kind, src, ctx)
            except Exception:  # noqa: BLE001 - the file's own extraction reports what is wrong
                pass
            continue
        if not collecting:
            gc.freeze()
            gc.enable()
            collecting = True
        tid, src, decline = msg
        frontends.DECLINE = decline
        try:
            if timeout > 0:  # the file's time starts after its frontend is imported and the shared PCH built
                prepare(src, ctx)
                conn.send(("start", tid))
            ff = extract_limited(src, ctx, timeout, prepared=True)
        except frontends.HandBack as back:
            ff = None
            reply = ("defer", back.module)
        except MemoryError:
            ff = problem_facts(src, "out of memory while analysing this file; not analysed")
        if ff is not None:  # the worker stores the facts in the cache itself (in parallel, not in the parent)
            memo = frontends.MEMO_OUT.pop(src.rel, None) if frontends.MEMO_OUT else None
            reply = (tid, (ff, writer is not None and cacheable(ff) and writer.put(src, ff, memo)))
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return


def _rss_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE / (1024 * 1024)
    except (OSError, ValueError, IndexError):
        return 0.0


class _Worker:
    def __init__(self, mp: Any, ctx: ExtractContext, timeout: float, writer: Any = None) -> None:
        parent, child = mp.Pipe(duplex=True)
        self.proc = mp.Process(target=_worker_main, args=(child, ctx, timeout, writer), daemon=True)
        self.proc.start()
        child.close()
        self.conn = parent
        self.task: Optional[int] = None  # task id being worked on
        self.started = 0.0
        self.preparing = False  # importing the frontend / building the PCH: the file's time has not started
        self.loaded: set[str] = set()  # costly modules it has imported (or is importing): see need()
        self.waited: Optional[str] = None  # the module its file was handed back for, if it was
        # a file sent ahead, while it works on ``task``, and the module it was handed back for: (task id, module)
        self.next: list[tuple[int, Optional[str]]] = []
        self.broken = False  # a send to it failed: no more files; its exit is handled when the parent sees it

    def kill(self) -> None:
        try:
            self.proc.kill()
        except (OSError, AttributeError):
            pass
        self.proc.join(5)
        self.conn.close()


class Batch:
    """Files submitted together; :meth:`Pool.collect` returns their facts in this order."""

    def __init__(self, ids: list[int]) -> None:
        self.ids = ids


class Pool:
    """``jobs`` worker processes started on first use; ``submit`` queues files, ``collect`` waits for a
    batch. ``on_done(n)`` is told as files finish (progress display). With a ``writer``
    (:class:`trtlint.store.cache.EntryWriter`) the workers store the facts they extract in the cache themselves.
    Use as a context manager."""

    def __init__(self, jobs: int, ctx: ExtractContext, timeout: float = 0.0, memory_limit: float = 0.0,
                 mp_context: Any = None, on_done: Optional[Callable[[int], None]] = None, writer: Any = None) -> None:
        import multiprocessing

        self.mp = mp_context or multiprocessing.get_context()
        self.jobs = max(1, jobs)
        self.ctx = ctx
        self.timeout = timeout
        self.grace = max(2.0, timeout * 0.25)
        self.memory_limit = memory_limit
        self.on_done = on_done
        self.writer = writer
        self.stored: set[int] = set()  # tasks whose facts a worker stored in the cache
        self.workers: list[_Worker] = []
        self.queue: list[tuple[int, int, int]] = []  # (priority, seq, task id)
        # files handed back for a module some worker has loaded, by module: (priority, seq, task id)
        self.waiting: dict[str, list[tuple[int, int, int]]] = {}
        self.priority: dict[int, int] = {}
        # per module: seconds its import took, and (total seconds, count) of the handed-back files done
        self.import_time: dict[str, float] = {}
        self.file_time: dict[str, tuple[float, int]] = {}
        self.imports: dict[str, int] = {}  # how many workers imported each costly module
        self.handed_back = 0  # files a worker handed back for a module another worker had
        self.files: dict[int, SourceFile] = {}
        self.results: dict[int, FileFacts] = {}
        self._ids = itertools.count()
        self.killed = {"timeout": 0, "memory": 0, "died": 0}
        self.fallback: Optional[str] = None  # why files were extracted in this process, if they were

    def set_context(self, ctx: ExtractContext) -> None:
        """Extract the files sent from now on with ``ctx`` (the feature macros the scan of the C++ files found
        after the Python files were queued); workers started later get it too. The cache writer's keys are
        the caller's to update (``FactCache.set_context``) before this call."""
        self.ctx = ctx
        keys = self.writer.ctx_keys if self.writer is not None else None
        for w in list(self.workers):
            if not w.broken:
                try:
                    w.conn.send(("ctx", ctx, keys))
                except (OSError, ValueError):  # the worker is gone, as in _dispatch
                    if w.task is None:
                        self._replace(w)  # a new one starts with the new context
                    else:
                        w.broken = True  # its current file is answered for when its exit is seen (_pump)

    def warm(self, kind: str, src: Optional[SourceFile] = None) -> None:
        """Start a worker now, before any file is queued, and have it import the frontend of ``kind`` (and, given
        ``src``, get ready for that file: libclang loaded, the shared PCH for its flags found or built,
        :func:`trtlint.pipeline.extract.warm`), while this process goes on planning; the file queued later
        finds it ready. Given again with a file, to the worker already started. No worker is started past
        ``jobs``, nor where none can be (the file is then extracted as it would have been)."""
        w = next((w for w in self.workers if not w.broken), None)
        if w is None:
            try:
                w = _Worker(self.mp, self.ctx, self.timeout, self.writer)
            except (OSError, ValueError):
                return
            self.workers.append(w)
        try:
            w.conn.send(("warm", kind, src))
        except (OSError, ValueError):
            pass  # seen when a file is sent to it (_dispatch)

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def submit(self, files: list[SourceFile], priority: int = 0) -> Batch:
        ids = []
        for f in files:
            tid = next(self._ids)
            self.files[tid] = f
            self.priority[tid] = priority
            heapq.heappush(self.queue, (priority, tid, tid))
            ids.append(tid)
        self._dispatch()
        return Batch(ids)

    def collect(self, batch: Batch, stored: Optional[set] = None) -> list[FileFacts]:
        """The batch's facts in order; the positions whose facts a worker stored in the cache are added to
        ``stored``."""
        ids, i = batch.ids, 0  # answers stay in self.results until the end: the first unanswered one only moves on
        while True:
            while i < len(ids) and ids[i] in self.results:
                i += 1
            if i == len(ids):
                break
            self._pump()
            if not self._pending() and not any(w.task is not None for w in self.workers):
                for t in ids:  # defensive: nothing is queued or running, yet a file has no answer
                    if t not in self.results:
                        self._finish(t, problem_facts(self.files[t], "the extraction worker lost this file; not analysed"))
        out = [self.results.pop(t) for t in batch.ids]
        if stored is not None:
            stored.update(i for i, t in enumerate(batch.ids) if t in self.stored)
        for t in batch.ids:
            self.stored.discard(t)
            self.files.pop(t, None)
            self.priority.pop(t, None)
        return out

    def close(self) -> None:
        for w in self.workers:
            try:
                w.conn.send(None)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + 2
        for w in self.workers:
            w.proc.join(max(0.0, deadline - time.monotonic()))
            if w.proc.is_alive():
                w.kill()
            else:
                w.conn.close()
        self.workers = []

    # -- internals ---------------------------------------------------------------------------------------

    def _pending(self) -> bool:
        return bool(self.queue) or any(self.waiting.values())

    def _pick(self, idle: list[_Worker], takeover: bool = True) -> Optional[tuple[_Worker, list, frozenset]]:
        """The next (worker, queue, modules it should hand files back for), or None to wait. A worker that has
        a costly module loaded takes the files handed back for it first; otherwise each takes the
        highest-priority file, which it hands back if it needs a module another worker has loaded. When only
        handed-back files are left and the workers that have their module are busy, an idle worker takes them
        over (importing the module too) only if that is expected to end sooner: half the files' estimated time
        must exceed the import's measured time."""
        for w in sorted(idle, key=lambda w: -len(w.loaded)):
            heaps = [h for h in [self.waiting.get(m) for m in w.loaded] if h] or ([self.queue] if self.queue else [])
            if heaps:
                others = set()
                for o in self.workers:
                    if o is not w:
                        others |= o.loaded
                return w, min(heaps, key=lambda h: h[0]), frozenset(others - w.loaded)
        if not takeover:
            return None
        for module, heap in self.waiting.items():
            if not heap:
                continue
            if not any(module in o.loaded for o in self.workers):  # its worker is gone
                return idle[0], heap, frozenset()
            total, n = self.file_time.get(module, (0.0, 0))
            each = total / n if n else _HANDED_BACK_GUESS
            if len(heap) * each / 2 > self.import_time.get(module, _IMPORT_GUESS):
                return idle[0], heap, frozenset()
        return None

    def _small(self, tid: Optional[int]) -> bool:
        """A file that may be sent ahead or queued behind (see the module docstring): not a C++ unit, and no
        editor text in the message (a large message could fill the pipe while the worker is busy)."""
        f = self.files.get(tid) if tid is not None else None
        return f is not None and f.kind not in _CPP_KINDS and f.text is None

    def _dispatch(self) -> None:
        while self._pending():
            idle = [w for w in self.workers if w.task is None and not w.broken]
            ahead = False
            if not idle:
                if len(self.workers) < self.jobs:
                    try:
                        idle = [_Worker(self.mp, self.ctx, self.timeout, self.writer)]
                    except (OSError, ValueError) as e:  # cannot start a process (no fork, no PIDs left)
                        if self.workers:
                            return  # the running workers take the queue
                        self._in_process(e)
                        continue
                    self.workers.append(idle[0])
                else:  # every worker is busy: one working on a small file gets the next small one ahead
                    idle = [w for w in self.workers if not w.broken and not w.next and self._small(w.task)]
                    ahead = True
                    if not idle:
                        return
            picked = self._pick(idle, takeover=not ahead)
            if picked is None:
                return  # handed-back files wait for the worker that has their module
            w, heap, decline = picked
            if ahead and not self._small(heap[0][2]):
                return  # a C++ unit waits for a worker that is free
            item = heapq.heappop(heap)
            tid = item[2]
            waited = next((m for m, h in self.waiting.items() if h is heap), None)
            try:
                w.conn.send((tid, self.files[tid], decline))
            except (OSError, ValueError):  # the worker is gone: the task goes back in the queue
                heapq.heappush(self.queue, item)
                if w.task is None:
                    self._replace(w)
                else:
                    w.broken = True  # its current file is answered for when its exit is seen (_pump)
                continue
            if w.task is None:
                self._start(w, tid, waited)
            else:
                w.next.append((tid, waited))

    def _start(self, w: _Worker, tid: int, waited: Optional[str]) -> None:
        w.task = tid
        w.started = time.monotonic()
        w.preparing = self.timeout > 0
        w.waited = waited

    def _in_process(self, why: Exception) -> None:
        """No worker can be started: the next queued file is extracted here (time limit by timer only)."""
        from .extract import extract_limited

        heap = self.queue if self.queue else next(h for h in self.waiting.values() if h)
        _prio, _seq, tid = heapq.heappop(heap)
        self.fallback = f"{type(why).__name__}: {why}"
        self._finish(tid, extract_limited(self.files[tid], self.ctx, self.timeout))

    def _finish(self, tid: int, ff: FileFacts) -> None:
        self.results[tid] = ff
        if self.on_done is not None:
            self.on_done(1)

    def _answer(self, w: _Worker, tid: Any, ff: Any) -> None:
        """A message that is not "start": the module it is importing, a file handed back, or the file's facts."""
        if tid == "load":
            module, seconds = ff
            w.loaded.add(module)
            if seconds is None:
                self.imports[module] = self.imports.get(module, 0) + 1
            else:
                self.import_time[module] = max(seconds, self.import_time.get(module, 0.0))
            return
        task, w.task = w.task, None
        if w.waited is not None and tid != "defer":
            total, n = self.file_time.get(w.waited, (0.0, 0))
            self.file_time[w.waited] = (total + time.monotonic() - w.started, n + 1)
        if w.next:  # the file sent ahead: the worker is on it now
            self._start(w, *w.next.pop(0))
        if tid == "defer":  # it waits for a worker that has the module (see _pick)
            if task is not None:
                self.handed_back += 1
                item = (self.priority.get(task, 0), task, task)
                heapq.heappush(self.waiting.setdefault(ff, []), item)
            return
        ff, stored = ff
        if stored:
            self.stored.add(tid)
        self._finish(tid, ff)

    def _replace(self, w: _Worker) -> None:
        w.kill()
        self.workers.remove(w)
        for tid, _waited in w.next:  # sent ahead, never started: back in the queue
            heapq.heappush(self.queue, (self.priority.get(tid, 0), tid, tid))
        w.next = []

    def _fail(self, w: _Worker, message: str, why: str) -> None:
        tid = w.task
        w.task = None
        self._replace(w)
        self.killed[why] += 1
        if tid is not None:
            self._finish(tid, problem_facts(self.files[tid], message))

    def service(self) -> None:
        """Take the answers that have arrived and hand out more files, without waiting: for a parent busy with
        work of its own (scanning files) between :meth:`submit` and :meth:`collect`."""
        if self.workers or self._pending():
            self._pump(block=False)

    def _pump(self, block: bool = True) -> None:
        from multiprocessing.connection import wait

        self._dispatch()
        busy = [w for w in self.workers if w.task is not None]
        if not busy:
            return
        now = time.monotonic()
        wait_for = _POLL if self.memory_limit > 0 else 1.0
        if not block:
            wait_for = 0.0
        elif self.timeout > 0:
            nearest = min(w.started + self.timeout + self.grace + (_PREPARE if w.preparing else 0) for w in busy)
            wait_for = max(0.0, min(wait_for, nearest - now))
        by_conn = {w.conn: w for w in busy}
        by_sentinel = {w.proc.sentinel: w for w in busy}
        ready = wait(list(by_conn) + list(by_sentinel), timeout=wait_for)
        for r in ready:
            w = by_conn.get(r)
            if w is not None and w.task is not None:
                try:
                    tid, ff = w.conn.recv()
                except (EOFError, OSError):
                    continue  # its sentinel says why below
                if tid == "start":  # the file's own time starts now
                    w.preparing = False
                    w.started = time.monotonic()
                    continue
                self._answer(w, tid, ff)
        for r in ready:
            w = by_sentinel.get(r)
            if w is None or w not in self.workers:
                continue
            while w.task is not None and w.conn.poll():  # a last message is still in the pipe
                try:
                    tid, ff = w.conn.recv()
                except (EOFError, OSError):
                    break
                if tid != "start":
                    self._answer(w, tid, ff)
            if w.task is None:
                self._replace(w)
                continue
            w.proc.join(1)
            code = w.proc.exitcode
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exited with status {code}"
            self._fail(w, f"the extraction worker stopped ({how}) while analysing this file; not analysed", "died")
        now = time.monotonic()
        for w in list(self.workers):
            if w.task is None:
                continue
            if self.timeout > 0 and now - w.started > self.timeout + self.grace + (_PREPARE if w.preparing else 0):
                self._fail(w, f"timed out after {self.timeout:g} s (file-timeout); not analysed", "timeout")
            elif self.memory_limit > 0 and _rss_mib(w.proc.pid) > self.memory_limit:
                self._fail(w, f"needed more than {self.memory_limit:g} MiB (worker-memory); not analysed", "memory")
        self._dispatch()
