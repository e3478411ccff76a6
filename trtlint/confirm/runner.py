"""Run a repro in a subprocess with a timeout: a crash or a hang is a reported outcome, never fatal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from .scripts import RESULT_TAG

STATUSES = ("confirmed", "not-reproduced", "inconclusive", "skipped")


@dataclass
class Outcome:
    status: str
    reason: str = ""
    details: dict = field(default_factory=dict)
    seconds: float = 0.0
    returncode: Optional[int] = None
    stdout_tail: str = ""
    stderr_tail: str = ""

    def to_dict(self) -> dict:
        d = {"status": self.status, "reason": self.reason, "seconds": round(self.seconds, 3)}
        if self.details:
            d["details"] = self.details
        if self.returncode is not None:
            d["returncode"] = self.returncode
        if self.stderr_tail:
            d["stderr_tail"] = self.stderr_tail
        return d


def _tail(text: str, n: int = 1500) -> str:
    text = text or ""
    return text if len(text) <= n else "..." + text[-n:]


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except (ValueError, AttributeError):
        return f"signal {-code}"


def run_script(script: Path, args: list[str] = (), timeout: float = 300.0, env: Optional[dict] = None) -> Outcome:
    """Run ``python3 script args`` in its own process group; read the ``TRTLINT-CONFIRM-RESULT`` line."""
    t0 = time.monotonic()
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    try:
        proc = subprocess.Popen(
            [sys.executable, str(script), *args],
            cwd=str(script.parent),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=full_env,
            start_new_session=True,  # its own process group: a hang is killed with everything it started
        )
    except OSError as e:
        return Outcome("inconclusive", f"the repro could not be started: {e}")
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()
        out, err = proc.communicate()
        return Outcome(
            "inconclusive",
            f"the repro hung: no result after {timeout:g} s (killed)",
            seconds=time.monotonic() - t0,
            stdout_tail=_tail(out),
            stderr_tail=_tail(err),
        )
    seconds = time.monotonic() - t0
    result = None
    for line in (out or "").splitlines():
        if line.startswith(RESULT_TAG):
            try:
                result = json.loads(line[len(RESULT_TAG):])
            except json.JSONDecodeError:
                result = None
    rc = proc.returncode
    if result is not None and rc == 0 and result.get("status") in STATUSES:
        return Outcome(result["status"], result.get("reason", ""), result.get("details") or {}, seconds, rc, _tail(out), _tail(err))
    if rc is not None and rc < 0:
        why = f"the repro crashed ({_signal_name(rc)})"
    elif rc != 0:
        last = (err or "").strip().splitlines()[-1:] or [""]
        why = f"the repro exited with status {rc}" + (f": {last[0][:300]}" if last[0] else "")
    else:
        why = "the repro exited without a result line"
    return Outcome("inconclusive", why, seconds=seconds, returncode=rc, stdout_tail=_tail(out), stderr_tail=_tail(err))


PROBE = r"""
import ctypes, json
out = {"tensorrt": None, "gpus": 0, "error": None}
try:
    import tensorrt
    out["tensorrt"] = getattr(tensorrt, "__version__", "?")
except Exception as e:
    out["error"] = "%s: %s" % (type(e).__name__, e)
for name in ("libcuda.so.1", "libcuda.so"):
    try:
        cuda = ctypes.CDLL(name)
    except OSError:
        continue
    if cuda.cuInit(0) == 0:
        n = ctypes.c_int(0)
        if cuda.cuDeviceGetCount(ctypes.byref(n)) == 0:
            out["gpus"] = n.value
    break
print(json.dumps(out))
"""


@dataclass
class Environment:
    tensorrt: Optional[str]  # version, or None when it cannot be imported
    gpus: int
    tensorrt_error: Optional[str] = None

    def to_dict(self) -> dict:
        return {"tensorrt": self.tensorrt, "gpus": self.gpus, "tensorrt_error": self.tensorrt_error}


def probe_environment(timeout: float = 60.0) -> Environment:
    """Is tensorrt importable, how many CUDA devices: asked in a subprocess (importing TensorRT or touching the
    driver must not take trtlint down)."""
    try:
        p = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        data = json.loads(p.stdout.strip().splitlines()[-1])
        return Environment(data.get("tensorrt"), int(data.get("gpus") or 0), data.get("error"))
    except (subprocess.TimeoutExpired, json.JSONDecodeError, IndexError, OSError, ValueError) as e:
        return Environment(None, 0, f"environment probe failed: {e}")
