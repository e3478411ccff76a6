"""Extraction in a child process that can be killed: the LSP server's time limit per file.

The server re-extracts an edited buffer while it runs (:mod:`trtlint.session`), from an executor thread.
There a SIGALRM timer cannot fire (only the main thread gets signals), and libclang busy in its own C loops
could not be interrupted by one anyway. So the extraction runs in one long-lived worker process: the server
sends it the file (and the open C++ buffers a translation unit may include), waits at most ``file-timeout``
seconds for the facts, and when they do not come kills the worker and returns TRT001 "timed out after N s"
for that file. The next extraction starts a fresh worker (its start-up is not counted in the limit).
"""

from __future__ import annotations

import logging
import multiprocessing
import time
from typing import Any, Optional

from .facts import FileFacts, ParseProblem, Span
from .frontends import ExtractContext, SourceFile

log = logging.getLogger(__name__)

# how long a fresh worker may take to import trtlint and load libclang before the server gives up on it
# (and extracts in its own process, without a limit, as it would without this module)
START_TIMEOUT = 60.0


def _serve(conn: Any) -> None:  # pragma: no cover - runs in the worker process
    from . import frontends
    from .engine import extract_one

    try:  # load libclang now: the first C++ file's time limit should not pay for it
        from .frontends import cpp

        cpp._load()
    except Exception:  # noqa: BLE001 - the C++ frontend says so itself when a file needs it
        pass
    conn.send("ready")
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        src, ctx, unsaved = msg
        frontends.UNSAVED.clear()
        frontends.UNSAVED.update(unsaved)
        conn.send(extract_one(src, ctx))


def _problem(src: SourceFile, msg: str) -> FileFacts:
    return FileFacts(path=src.rel, kind=src.kind, digest=src.digest, problems=(ParseProblem(msg, Span(src.rel, 1)),))


class IsolatedExtractor:
    """One worker process, started on first use and again after it was killed. Not thread-safe: one caller
    at a time (the session's)."""

    def __init__(self) -> None:
        self._proc: Optional[multiprocessing.process.BaseProcess] = None
        self._conn: Any = None
        self.kills = 0  # workers killed for taking too long (for the log and the tests)

    def _start(self) -> bool:
        # forkserver: the server is multi-threaded (asyncio + executor), and forking it could deadlock
        mp = multiprocessing.get_context("forkserver")
        parent, child = mp.Pipe()
        proc = mp.Process(target=_serve, args=(child,), daemon=True, name="trtlint-extract")
        proc.start()
        child.close()
        try:
            ok = parent.poll(START_TIMEOUT) and parent.recv() == "ready"
        except (EOFError, OSError):
            ok = False
        if not ok:
            log.warning("the extraction worker did not start; extracting in the server process")
            self._kill(proc, parent)
            return False
        self._proc, self._conn = proc, parent
        return True

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

    def extract(self, src: SourceFile, ctx: ExtractContext, timeout: float, unsaved: dict[str, str]) -> FileFacts:
        """The facts of ``src`` within ``timeout`` seconds, or a TRT001 saying it timed out. ``timeout`` <= 0:
        no limit (extracted in this process)."""
        from .engine import extract_one

        if timeout <= 0:
            return extract_one(src, ctx)
        if (self._proc is None or not self._proc.is_alive()) and not self._start():
            return extract_one(src, ctx)
        t0 = time.monotonic()
        try:
            self._conn.send((src, ctx, unsaved))
            if self._conn.poll(timeout):
                return self._conn.recv()
        except (EOFError, OSError, BrokenPipeError) as e:
            code = self._proc.exitcode if self._proc is not None else None
            self.close()
            log.warning("the extraction worker died on %s (%s, exit code %s)", src.rel, e, code)
            return _problem(src, f"the extraction worker died (exit code {code}); not analysed")
        self.kills += 1
        log.warning("%s: extraction took over %g s; worker killed", src.rel, time.monotonic() - t0)
        self.close()
        return _problem(src, f"timed out after {timeout:g} s (file-timeout); not analysed")

    def close(self) -> None:
        if self._proc is not None:
            try:
                self._conn.send(None)
            except Exception:  # noqa: BLE001
                pass
            self._kill(self._proc, self._conn)
        self._proc = self._conn = None
