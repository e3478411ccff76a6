"""Hostile trees against the readers of project files (issue 37): a link to ``/dev/zero``, a link to a secret
outside the project, a FIFO. Each run is a real ``trtlint check`` in a subprocess under a 2 GB address-space
cap and a 60 s limit, in every output format: it ends with the rest of the tree reported, and no output holds
a line of a file outside the project.

Every reader goes through :mod:`trtlint.base.safeio`; these tests exercise the ones that read files after
discovery (the text reporter's code frames, the baseline's snippets, suppression scans) as well as discovery.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from trtlint.base import safeio

from .helpers import REPO, cap_memory

FORMATS = ("text", "json", "sarif", "github", "gitlab", "junit")
SECRET = "SECRET-LINE-4d6f2b: do not print me"


def _check(root: Path, fmt: str, *extra: str, git: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "trtlint", "check", str(root), "--format", fmt, "--no-cache", "--no-progress", *extra],
        capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL, preexec_fn=cap_memory, cwd=root,
    )


def _project(root: Path) -> None:
    """A tree with one true finding of its own (a duplicate registration is not needed: TRT101 on a Python
    emission against a C++ creator), so each test can see that the rest of the run was reported."""
    from trtlint.checks.examples.contract import creator_cpp, onnxscript_py

    (root / "cpp").mkdir(parents=True)
    (root / "py").mkdir()
    (root / "cpp" / "fooPlugin.cpp").write_text(creator_cpp())
    (root / "py" / "translate.py").write_text(onnxscript_py("FooPlugn"))
    (root / "trtlint.toml").write_text("respect-gitignore = false\n")


def _assert_rest_reported(r: subprocess.CompletedProcess, fmt: str) -> None:
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr[-2000:]
    assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
    assert "FooPlugn" in r.stdout, r.stdout[-2000:]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_link_to_dev_zero_is_never_read(tmp_path, fmt):
    root = tmp_path / "proj"
    _project(root)
    (root / "x.onnx").symlink_to("/dev/zero")
    (root / "zero.py").symlink_to("/dev/zero")
    r = _check(root, fmt)
    _assert_rest_reported(r, fmt)
    if fmt == "json":
        msgs = {d["location"]["path"]: d["message"] for d in json.loads(r.stdout)["diagnostics"] if d["code"] == "TRT001"}
        assert msgs == {"x.onnx": "skipped: symbolic link to '/dev/zero', outside the project root (not followed)",
                        "zero.py": "skipped: symbolic link to '/dev/zero', outside the project root (not followed)"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_link_to_a_file_outside_the_project_never_prints_its_content(tmp_path, fmt):
    root = tmp_path / "proj"
    _project(root)
    secret = tmp_path / "credentials"
    secret.write_text(SECRET + "\n" + SECRET + "\n")
    (root / "a.py").symlink_to(secret)
    (root / "cpp" / "b.h").symlink_to(secret)
    (root / "c.onnx").symlink_to(secret)
    r = _check(root, fmt)
    _assert_rest_reported(r, fmt)
    assert SECRET not in r.stdout and SECRET not in r.stderr
    if fmt == "text":
        assert "a.py:1:1: info[TRT001] parse-error: skipped: symbolic link to" in r.stdout, r.stdout


def test_a_link_inside_the_project_gets_no_code_frame_of_its_target(tmp_path):
    """A link is not followed: its finding is shown without a frame, even when the target is in the project."""
    root = tmp_path / "proj"
    _project(root)
    (root / "inner.txt").write_text(SECRET + "\n")
    (root / "alias.py").symlink_to("inner.txt")
    r = _check(root, "text")
    _assert_rest_reported(r, "text")
    assert "alias.py:1:1: info[TRT001] parse-error: skipped: symbolic link to 'inner.txt'" in r.stdout
    assert SECRET not in r.stdout


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_fifo_outside_a_git_work_tree_does_not_hang_any_format(tmp_path, fmt):
    root = tmp_path / "proj"
    _project(root)
    os.mkfifo(root / "pipe.py")
    os.mkfifo(root / "cpp" / "pipe.cu")
    r = _check(root, fmt)  # subprocess.run's timeout: a hang fails the test
    _assert_rest_reported(r, fmt)
    if fmt == "json":
        msgs = {d["location"]["path"]: d["message"] for d in json.loads(r.stdout)["diagnostics"] if d["code"] == "TRT001"}
        assert msgs == {"pipe.py": "skipped: not a regular file (a FIFO, socket or device); not read",
                        "cpp/pipe.cu": "skipped: not a regular file (a FIFO, socket or device); not read"}


def test_a_baseline_written_beside_hostile_files_holds_no_outside_line(tmp_path):
    root = tmp_path / "proj"
    _project(root)
    secret = tmp_path / "credentials"
    secret.write_text(SECRET + "\n")
    (root / "a.py").symlink_to(secret)
    (root / "x.onnx").symlink_to("/dev/zero")
    os.mkfifo(root / "pipe.py")
    r = _check(root, "text", "--write-baseline", str(tmp_path / "baseline.json"))
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr
    text = (tmp_path / "baseline.json").read_text()
    assert SECRET not in text and "pipe.py" in text


# ---------------------------------------------------------------- the guarded reader itself
def test_safeio_refuses_special_files_links_outside_and_oversize_files(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "ok.txt").write_bytes(b"hello\n")
    (root / "big.txt").write_bytes(b"x" * 2000)
    os.mkfifo(root / "fifo")
    (root / "zero").symlink_to("/dev/zero")
    (tmp_path / "out.txt").write_text("outside\n")
    (root / "out").symlink_to(tmp_path / "out.txt")
    (root / "in").symlink_to("ok.txt")
    assert safeio.read_bytes(root / "ok.txt", root=root) == b"hello\n"

    def refused(name: str, **kw) -> str:
        with pytest.raises(safeio.ReadRefused) as e:
            safeio.read_bytes(root / name, root=root, **kw)
        return e.value.reason

    assert refused("fifo") == "not a regular file (a FIFO, socket or device); not read"
    assert refused("zero") == "a link to '/dev/zero', outside the project root (not read)"
    assert refused("out") == f"a link to '{tmp_path / 'out.txt'}', outside the project root (not read)"
    assert refused("in") == "a symbolic link (not followed)"
    assert safeio.read_bytes(root / "in", root=root, follow=True) == b"hello\n"
    assert refused("big.txt", limit=1000) == "file is 2000 bytes, over the 1000-byte limit"
    assert refused("missing") == "cannot read file: No such file or directory"
    # no root: a device is still refused, also when followed
    with pytest.raises(safeio.ReadRefused):
        safeio.read_bytes("/dev/zero", follow=True)
    assert safeio.digest_file(root / "fifo") == (None, "not a regular file (a FIFO, socket or device); not read")
    assert safeio.try_read_bytes(root / "zero", root=root) is None


@pytest.mark.parametrize("plant", ["dev-zero", "fifo", "deep-json"])
def test_a_planted_cache_is_a_miss_not_a_hang_or_a_crash(tmp_path, plant):
    """.trtlint_cache lives in the project, so a pull request can commit one: every entry replaced by a link to
    /dev/zero, a FIFO, or JSON/pickle nested 200,000 deep is a cache miss, and the run reports as a cold one."""
    root = tmp_path / "proj"
    _project(root)
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def run() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "trtlint", "check", ".", "--format", "json", "--no-progress"],
                              capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL,
                              preexec_fn=cap_memory, cwd=root)

    cold = run()
    assert cold.returncode == 1, cold.stderr
    entries = [p for p in (root / ".trtlint_cache").rglob("*") if p.is_file()]
    assert len(entries) >= 3, entries
    for p in entries:
        p.unlink()
        if plant == "dev-zero":
            p.symlink_to("/dev/zero")
        elif plant == "fifo":
            os.mkfifo(p)
        else:
            p.write_bytes(b"[" * 200_000 + b"]" * 200_000 if p.suffix == ".json" else b"(" * 200_000)
    warm = run()
    assert "Traceback" not in warm.stderr and "internal error" not in warm.stderr, warm.stderr[-2000:]
    assert warm.returncode == 1, warm.stderr[-2000:]
    assert json.loads(warm.stdout)["diagnostics"] == json.loads(cold.stdout)["diagnostics"]
