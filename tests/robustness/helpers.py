"""Running ``trtlint`` as a user does (a subprocess, bounded in time) on a tree made for a test."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# the address space a hostile-tree run may map (issue 37: every attack ends under a 2 GB cap)
MEMORY_CAP = 2 << 30


def cap_memory() -> None:  # pragma: no cover - runs in the child, before trtlint starts (preexec_fn)
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def trtlint(*args: str, cwd: Path | None = None, timeout: float = 120, env: dict | None = None) -> subprocess.CompletedProcess:
    e = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "trtlint", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=e,
        stdin=subprocess.DEVNULL,
    )


def check_json(root: Path, *extra: str, timeout: float = 120, env: dict | None = None) -> tuple[int, list[dict], str]:
    """``trtlint check ROOT --format json``: (exit code, diagnostics, stderr). No traceback may reach stderr."""
    r = trtlint("check", str(root), "--format", "json", "--no-cache", "--no-progress", "-j", "1", *extra,
                timeout=timeout, env=env)
    assert "Traceback" not in r.stderr, r.stderr
    diags = json.loads(r.stdout)["diagnostics"] if r.stdout.strip() else []
    return r.returncode, diags, r.stderr


def at(diags: list[dict], path: str, code: str = "TRT001") -> list[str]:
    return [d["message"] for d in diags if d["code"] == code and d["location"]["path"] == path]


class FifoWatch:
    """Whether anything opens a FIFO while a run goes on: a writer thread blocks in ``open`` until a reader
    opens the FIFO (trtlint must never). ``opened_by_run()`` says whether it happened, then lets the writer finish
    with a reader of the test's own and checks the watcher itself worked."""

    def __init__(self, fifo: Path):
        self.fifo = fifo
        self.opened = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _watch(self) -> None:
        try:
            fd = os.open(self.fifo, os.O_WRONLY)  # blocks until a reader opens it
            self.opened.set()
            os.close(fd)
        except OSError:
            pass

    def opened_by_run(self) -> bool:
        was = self.opened.is_set()
        os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK)  # the test's own reader: the writer thread finishes
        self.thread.join(5)
        assert self.opened.is_set(), "the watcher did not see a reader: it could not have seen trtlint's"
        return was
