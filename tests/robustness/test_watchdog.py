"""Bounded time and memory where a signal cannot help: the worker pool's watchdog (trtlint/pipeline/workers.py).

The pathological input is real: a C++ file whose macros double at every level, so libclang's preprocessor
expands millions of tokens inside C code (about 30 s and 1.5 GB for the file below on the development
machine). A SIGALRM handler never runs while libclang is busy; the parent must kill the worker.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .helpers import REPO, at

PLUGIN = "class {0} : public nvinfer1::IPluginV3 {{}};\n"
# 2**23 tokens after expansion; the marker makes it a plugin unit, parsed eagerly
BLOWUP = (
    "class BlowupPlugin : public nvinfer1::IPluginV3 {};\n#define A0 x,x\n"
    + "".join(f"#define A{i} A{i - 1},A{i - 1}\n" for i in range(1, 24))
    + "int x;\nint arr[] = {A22};\n"
)


def _tree(root: Path, config: str) -> None:
    (root / "trtlint.toml").write_text(config)
    for i in range(4):
        (root / f"P{i}Plugin.cpp").write_text(PLUGIN.format(f"P{i}Plugin"))
    (root / "BlowupPlugin.cpp").write_text(BLOWUP)
    (root / "bad.py").write_bytes(b"x = '\xff'\n")  # a TRT001 of its own: proof the other files were read


def _check(root: Path, timeout: float = 120, jobs: str = "2") -> tuple[float, list[dict], str]:
    import json

    t = time.monotonic()
    r = subprocess.run(
        [sys.executable, "-m", "trtlint", "check", str(root), "--format", "json", "--no-cache", "--no-progress", "-j", jobs],
        capture_output=True, text=True, timeout=timeout, env={**os.environ, "PYTHONPATH": str(REPO)},
        stdin=subprocess.DEVNULL,
    )
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode in (0, 1), r.stderr
    return time.monotonic() - t, json.loads(r.stdout)["diagnostics"], r.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_parse_stuck_in_libclang_is_killed_at_the_time_limit(tmp_path, jobs):
    """Also with -j 1: C++ is always parsed in a worker process the parent can kill."""
    _tree(tmp_path, "file-timeout = 2\nworker-memory = 0\n")
    took, diags, _ = _check(tmp_path, jobs=jobs)
    assert at(diags, "BlowupPlugin.cpp") == ["BlowupPlugin.cpp could not be parsed: timed out after 2 s (file-timeout); not analysed"]
    assert at(diags, "bad.py") == ["bad.py could not be parsed: not valid UTF-8 (byte 0xff at offset 5)"]
    assert took < 20  # limit 2 s + 2 s grace, plus start-up; the parse alone takes far longer


def test_a_parse_over_the_memory_limit_is_killed(tmp_path):
    _tree(tmp_path, "file-timeout = 0\nworker-memory = 300\n")
    took, diags, _ = _check(tmp_path)
    assert at(diags, "BlowupPlugin.cpp") == [
        "BlowupPlugin.cpp could not be parsed: needed more than 300 MiB (worker-memory); not analysed"
    ]
    assert at(diags, "bad.py") == ["bad.py could not be parsed: not valid UTF-8 (byte 0xff at offset 5)"]
    assert took < 40


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d.name))
            except (OSError, ValueError, IndexError):
                pass
    return out


def test_a_worker_that_dies_costs_only_its_file(tmp_path):
    """Kill every worker while one is parsing the blow-up file: that file is TRT001 naming the signal,
    fresh workers take over and the other files are still analysed."""
    _tree(tmp_path, "file-timeout = 0\nworker-memory = 0\n")
    import json

    p = subprocess.Popen(
        [sys.executable, "-m", "trtlint", "check", str(tmp_path), "--format", "json", "--no-cache", "--no-progress", "-j", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
        stdin=subprocess.DEVNULL,
    )
    try:
        killed = 0
        end = time.monotonic() + 20
        while time.monotonic() < end and not _children(p.pid):
            time.sleep(0.2)
        time.sleep(4)  # the small files are done by now; the blow-up file keeps one worker busy for many seconds
        for c in _children(p.pid):
            os.kill(c, signal.SIGKILL)
            killed += 1
        out, err = p.communicate(timeout=90)
    finally:
        if p.poll() is None:
            p.kill()
    assert killed, "no worker process was found to kill"
    assert "Traceback" not in err, err
    diags = json.loads(out)["diagnostics"]
    assert at(diags, "BlowupPlugin.cpp") == [
        "BlowupPlugin.cpp could not be parsed: the extraction worker stopped (killed by signal 9) while analysing "
        "this file; not analysed"
    ]
    assert at(diags, "bad.py") == ["bad.py could not be parsed: not valid UTF-8 (byte 0xff at offset 5)"]


def test_building_the_shared_pch_is_not_a_files_time(tmp_path):
    """The first C++ unit on a machine builds the shared PCH (seconds); that is not the file's time, so even a
    small limit does not time it out, in the worker pool or in process."""
    import json

    root = tmp_path / "p"
    root.mkdir()
    (root / "trtlint.toml").write_text("file-timeout = 1\n")
    (root / "FooPlugin.cpp").write_text("#include <NvInferRuntime.h>\n#include <vector>\n" + PLUGIN.format("FooPlugin"))
    for jobs in ("1", "2"):
        pch = tmp_path / f"pch{jobs}"  # empty: the PCH is built in this run
        r = subprocess.run(
            [sys.executable, "-m", "trtlint", "check", str(root), "--format", "json", "--no-cache", "--no-progress", "-j", jobs],
            capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(REPO), "TRTLINT_PCH_DIR": str(pch)},
        )
        assert r.returncode in (0, 1), r.stderr
        assert any(pch.glob("*.pch")), "no PCH was built"
        assert at(json.loads(r.stdout)["diagnostics"], "FooPlugin.cpp") == []
