"""Running ``trtlint`` as a user does (a subprocess, bounded in time) on a tree made for a test."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
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
