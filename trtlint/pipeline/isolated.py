"""Extraction in a child process that can be killed: the LSP server's time limit per file.

The server re-extracts an edited buffer while it runs (:mod:`trtlint.editor.session`), from an executor thread.
There a SIGALRM timer cannot fire (only the main thread gets signals), and libclang busy in its own C loops
could not be interrupted by one anyway. So the extraction runs in one long-lived worker process: the server
sends it the file (and the open C++ buffers a translation unit may include) and watches it, as the run's
worker pool (:mod:`trtlint.pipeline.workers`) watches its workers: a worker still busy ``file-timeout`` seconds later
is killed and the file becomes TRT001 "timed out after N s"; one over ``worker-memory`` MiB is killed too
("needed more than N MiB"); one that dies costs only its file. The next extraction starts a fresh worker. A
fresh worker warms up (libclang, the compiler's include paths, the precompiled prelude, which may have to be
built) before it is given a file, so its start-up is not counted in the limit.

:func:`call_limited` runs one other parse the same way, in a child of its own that is watched the same way:
``trtlint coverage``'s reading of an ONNX model.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import time
from typing import Any, Optional

from trtlint.base.facts import FileFacts, ParseProblem, Span
from ..frontends import ExtractContext, SourceFile

log = logging.getLogger(__name__)

# how long a fresh worker may take to import trtlint and load libclang before the server gives up on it
# (and extracts in its own process, without a limit, as it would without this module)
START_TIMEOUT = 60.0
# how many edited units keep their translation unit in the worker, and the share of ``worker-memory`` past which the
# worker drops them (frontends/cpp/kept.py)
KEPT_UNITS = 2
KEPT_MEMORY_SHARE = 0.6


def _serve(conn: Any, ctx: ExtractContext) -> None:  # pragma: no cover - runs in the worker process
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server's to handle
    from pathlib import Path

    from .. import frontends
    from .extract import extract_one

    try:  # warm up on a two-line unit (held in memory, never written): the first file should not pay for it
        text = "#include <vector>\nint trtlint_warm_up;\n"
        extract_one(SourceFile(path=Path(ctx.root) / "trtlint-warm-up.cpp", rel="trtlint-warm-up.cpp", kind="cpp",
                               digest="warm-up", text=text), ctx)
    except Exception:  # noqa: BLE001 - the C++ frontend says so itself when a file needs it
        pass
    # an edited unit's translation unit is kept for its next extraction (frontends/cpp/kept.py: the last two units)
    from ..frontends.cpp import kept

    kept.enable(KEPT_UNITS)
    conn.send("ready")
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        if msg == "stats":  # how the worker's extractions went (kept.STATS: through a kept unit, or why afresh)
            conn.send(dict(kept.STATS))
            continue
        src, ctx, unsaved, memory_limit = msg
        frontends.UNSAVED.clear()
        frontends.UNSAVED.update(unsaved)
        try:
            ff = extract_one(src, ctx)
        except MemoryError:
            kept.clear()
            ff = _problem(src, "out of memory while analysing this file; not analysed")
        if memory_limit > 0 and _rss_mib(os.getpid()) > KEPT_MEMORY_SHARE * memory_limit:
            kept.clear()  # near the limit: the kept units go first
        conn.send(ff)


def _rss_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0


def _problem(src: SourceFile, msg: str) -> FileFacts:
    return FileFacts(path=src.rel, kind=src.kind, digest=src.digest, problems=(ParseProblem(msg, Span(src.rel, 1)),))


class IsolatedExtractor:
    """One worker process, started on first use and again after it was killed. Not thread-safe: one caller
    at a time (the session's)."""

    def __init__(self) -> None:
        self._proc: Optional[multiprocessing.process.BaseProcess] = None
        self._conn: Any = None
        self._ready = False  # the worker said "ready" (its warm-up is done)
        self.kills = 0  # workers killed for taking too long (for the log and the tests)

    def start(self, ctx: ExtractContext) -> None:
        """Start a worker (when none runs) without waiting for it: it warms up while the server goes on."""
        if self._proc is not None and self._proc.is_alive():
            return
        self.close()
        # forkserver: the server is multi-threaded (asyncio + executor), and forking it could deadlock
        mp = multiprocessing.get_context("forkserver")
        parent, child = mp.Pipe()
        proc = mp.Process(target=_serve, args=(child, ctx), daemon=True, name="trtlint-extract")
        proc.start()
        child.close()
        self._proc, self._conn, self._ready = proc, parent, False

    def _start(self, ctx: ExtractContext) -> bool:
        """A worker that has warmed up, started when needed; False when none could be."""
        self.start(ctx)
        if self._ready:
            return True
        try:
            self._ready = bool(self._conn.poll(START_TIMEOUT)) and self._conn.recv() == "ready"
        except (EOFError, OSError):
            self._ready = False
        if not self._ready:
            log.warning("the extraction worker did not start; extracting in the server process")
            self.close()
        return self._ready

    @staticmethod
    def _kill(proc: Any, conn: Any) -> None:
        try:
            proc.kill()
            proc.join(5)
        except Exception:  # noqa: BLE001 - best effort
            pass
        try:
            conn.close()
        except Exception:  # noqa: BLE001
            pass

    def extract(self, src: SourceFile, ctx: ExtractContext, timeout: float, unsaved: dict[str, str],
                memory_limit: float = 0.0) -> FileFacts:
        """The facts of ``src``, or a TRT001 saying it took over ``timeout`` seconds or over ``memory_limit``
        MiB (<= 0: no limit; with neither, the worker still parses: a crash costs only the file). Only when no
        worker can start is the file extracted in this process."""
        from .extract import extract_one

        if not self._start(ctx):
            return extract_one(src, ctx)
        t0 = time.monotonic()
        deadline = t0 + timeout if timeout > 0 else float("inf")
        try:
            self._conn.send((src, ctx, unsaved, memory_limit))
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                if self._conn.poll(min(left, 0.2 if memory_limit > 0 else 1.0)):
                    return self._conn.recv()
                if not self._proc.is_alive():
                    raise EOFError("the worker exited")
                if memory_limit > 0 and _rss_mib(self._proc.pid) > memory_limit:
                    self.kills += 1
                    log.warning("%s: the extraction worker went over %g MiB; killed", src.rel, memory_limit)
                    self.close()
                    return _problem(src, f"needed more than {memory_limit:g} MiB (worker-memory); not analysed")
        except (EOFError, OSError) as e:
            proc = self._proc
            self.close()
            code = proc.exitcode if proc is not None else None
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exited with status {code}"
            log.warning("the extraction worker stopped on %s (%s: %s)", src.rel, how, e)
            return _problem(src, f"the extraction worker stopped ({how}) while analysing this file; not analysed")
        self.kills += 1
        log.warning("%s: extraction took over %g s; worker killed", src.rel, time.monotonic() - t0)
        self.close()
        self.start(ctx)  # the next one warms up while the user edits
        return _problem(src, f"timed out after {timeout:g} s (file-timeout); not analysed")

    def stats(self) -> dict:
        """How the running worker's extractions went (``frontends/cpp/kept.py``'s counts: ``kept``, or why a unit was
        parsed afresh); empty when no worker runs or it does not answer within a few seconds."""
        if self._proc is None or not self._ready:
            return {}
        try:
            self._conn.send("stats")
            if self._conn.poll(5.0):
                got = self._conn.recv()
                return got if isinstance(got, dict) else {}
        except (EOFError, OSError):
            pass
        return {}

    def close(self) -> None:
        if self._proc is not None:
            try:
                self._conn.send(None)
            except Exception:  # noqa: BLE001
                pass
            self._kill(self._proc, self._conn)
        self._proc = self._conn = None
        self._ready = False


class Stopped(Exception):
    """:func:`call_limited`'s child did not answer: ``reason`` says why (a TRT001 / error message's words)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _call_child(conn: Any, fn: Any, args: tuple) -> None:  # pragma: no cover - runs in the child
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        conn.send((True, fn(*args)))
    except BaseException as e:  # noqa: BLE001 - no traceback on the user's terminal: the parent says why
        try:
            conn.send((False, "out of memory" if isinstance(e, MemoryError) else f"{type(e).__name__}: {e}"))
        except BaseException:  # noqa: BLE001
            os._exit(70)


def call_limited(fn: Any, args: tuple, timeout: float, memory_limit: float, mp_context: Any = None) -> Any:
    """``fn(*args)`` in a child process under the run's limits (for a parse that is not a file's extraction:
    the coverage reader of an ONNX model); its result, or :class:`Stopped` raised with the reason: past
    ``timeout`` seconds or over ``memory_limit`` MiB (<= 0: none) the child is killed; a child that dies (a
    parser's segfault) is reported by its signal. One process per call (a fork: a few ms)."""
    mp = mp_context or multiprocessing.get_context()
    parent, child = mp.Pipe(duplex=False)
    proc = mp.Process(target=_call_child, args=(child, fn, args), daemon=True, name="trtlint-call")
    proc.start()
    child.close()
    deadline = time.monotonic() + timeout if timeout > 0 else float("inf")
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Stopped(f"timed out after {timeout:g} s (file-timeout)")
            if parent.poll(min(left, 0.2)):
                try:
                    ok, value = parent.recv()
                except (EOFError, OSError):
                    ok, value = None, None
                if ok is True:
                    return value
                if ok is False:
                    raise Stopped(value)
            if not proc.is_alive() and not parent.poll(0):
                proc.join(1)
                code = proc.exitcode
                how = f"killed by signal {-code}" if code is not None and code < 0 else f"exited with status {code}"
                raise Stopped(f"the worker process stopped ({how})")
            if memory_limit > 0 and _rss_mib(proc.pid) > memory_limit:
                raise Stopped(f"needed more than {memory_limit:g} MiB (worker-memory)")
    finally:
        IsolatedExtractor._kill(proc, parent)
