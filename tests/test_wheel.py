"""What a user installs is what is tested: the wheel, built as the README says, installed (not editable) into a
fresh virtual environment, and run from there as a user runs it: ``trtlint check`` on a C++/CMake project,
``trtlint coverage`` on a model, ``trtlint rules``, and the language server's handshake until diagnostics arrive.

The environment sees the test run's site-packages (``--system-site-packages``) for the dependencies only:
trtlint itself comes from the wheel (the test asserts where it is imported from), and every command runs in
a temporary folder outside this checkout, so nothing of the source tree can stand in for a file the wheel
lacks. The wheel's file list is compared with the source tree: every module and data file of ``trtlint/``
and every rule pack of ``rules/`` must be in it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _env() -> dict:
    # nothing of this checkout on the path: PYTHONPATH (set by some test helpers) would hide a missing module
    e = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    e["PYTHONDONTWRITEBYTECODE"] = "1"
    return e


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    src = tmp_path_factory.mktemp("src") / "trtlint"
    # build from a copy of the checkout's own files (what `git clone` gives a user), not from whatever build/ or
    # *.egg-info an editable install left in the working tree
    shutil.copytree(REPO, src, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "__pycache__", ".trtlint_cache", ".pytest_cache", ".venv", "venv"))
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(src)],
                       capture_output=True, text=True, timeout=600, env=_env())
    assert r.returncode == 0, r.stdout + r.stderr
    wheels = sorted(out.glob("trtlint-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """The ``bin`` folder of a fresh virtual environment with the wheel installed."""
    env_dir = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(system_site_packages=True, with_pip=False, symlinks=True).create(env_dir)
    py = env_dir / "bin" / "python"
    # the test run's pip, aimed at the new environment: no download of pip itself
    r = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--quiet",
                        "--disable-pip-version-check", str(wheel)], capture_output=True, text=True, timeout=600, env=_env())
    if r.returncode != 0 and "no such option: --python" in r.stderr:  # pip < 22.3
        r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--prefix", str(env_dir),
                            "--ignore-installed", str(wheel)], capture_output=True, text=True, timeout=600, env=_env())
    assert r.returncode == 0, r.stdout + r.stderr
    return env_dir / "bin"


def _run(bindir: Path, *args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(bindir / "trtlint"), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=_env(), stdin=subprocess.DEVNULL)


def _source_files() -> set[str]:
    """Every module and data file of the package and every rule pack, as paths inside the wheel."""
    out = set()
    for p in (REPO / "trtlint").rglob("*"):
        rel = p.relative_to(REPO)
        if p.is_symlink() or not p.is_file() or "__pycache__" in rel.parts or p.suffix in (".pyc", ".pyo"):
            continue
        out.add(rel.as_posix())
    for p in (REPO / "rules").iterdir():
        if p.is_file():
            out.add(f"trtlint/rules_data/{p.name}")
    return out


def test_the_wheel_holds_every_module_and_data_file_of_the_source_tree(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = _source_files()
    assert any(n.startswith("trtlint/pipeline/buildmodel/") for n in expected)  # the package once forgotten
    assert any(n.startswith("trtlint/rules_data/") and n.endswith(".yaml") for n in expected)
    assert any(n.startswith("trtlint/frontends/prelude/") for n in expected)
    assert sorted(expected - names) == []
    # and nothing but the package: no tests, fixtures or byte code
    stray = sorted(n for n in names if not n.startswith(("trtlint/", "trtlint-")) or n.endswith((".pyc", ".pyo")))
    assert stray == []


def test_the_installed_trtlint_is_the_wheel_not_this_checkout(installed, tmp_path):
    r = subprocess.run([str(installed / "python"), "-c", "import trtlint, sys; print(trtlint.__file__)"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=60, env=_env())
    assert r.returncode == 0, r.stderr
    where = Path(r.stdout.strip()).resolve()
    assert installed.parent.resolve() in where.parents, where
    assert REPO.resolve() not in where.parents


def test_check_on_a_cpp_cmake_project_from_the_wheel(installed, tmp_path):
    proj = tmp_path / "edgellm_mini"
    shutil.copytree(REPO / "tests" / "fixtures" / "edgellm_mini", proj)
    r = _run(installed, "check", ".", "--format", "json", "--no-progress", cwd=proj)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    assert r.returncode == 1, r.stderr
    codes = {d["code"] for d in json.loads(r.stdout)["diagnostics"]}
    # C++ (libclang, the prelude headers), CMake (the build model) and Python routes all ran from the wheel
    assert {"TRT101", "TRT301", "TRT401"} <= codes, codes
    assert "analysed 3 plugins, 3 creators in 1 target" in r.stderr, r.stderr
    # the text report too (rich, code frames)
    t = _run(installed, "check", ".", "--no-progress", cwd=proj)
    assert t.returncode == 1 and "error[TRT301] enqueue-allocation" in t.stdout, t.stdout + t.stderr


def test_coverage_and_rules_from_the_wheel(installed, tmp_path):
    import onnx
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["t"]),
                           helper.make_node("NoSuchPlugin_TRT", ["t"], ["y"], plugin_version="1")], "g", [x], [y])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), str(tmp_path / "m.onnx"))
    r = _run(installed, "coverage", "m.onnx", "--format", "json", cwd=tmp_path)
    assert "Traceback" not in r.stderr, r.stderr
    report = json.loads(r.stdout)
    text = json.dumps(report)
    assert "Relu" in text and "NoSuchPlugin_TRT" in text, text[:2000]
    rules = _run(installed, "rules", "--format", "json", cwd=tmp_path)
    assert rules.returncode == 0, rules.stderr
    codes = {r["code"] for r in json.loads(rules.stdout)}
    assert {"TRT001", "TRT101", "TRT301"} <= codes
    doc = _run(installed, "rule", "TRT101", cwd=tmp_path)
    assert doc.returncode == 0 and "plugin-name-mismatch" in doc.stdout


def _frame(msg: dict) -> bytes:
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read_message(stream, deadline: float) -> dict:
    headers = {}
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError
        line = stream.readline()
        if not line:
            raise EOFError
        line = line.strip()
        if not line:
            break
        k, _, v = line.decode("ascii", "replace").partition(":")
        headers[k.strip().lower()] = v.strip()
    return json.loads(stream.read(int(headers["content-length"])))


def test_the_language_server_from_the_wheel_answers_and_publishes_diagnostics(installed, tmp_path):
    proj = tmp_path / "edgellm_mini"
    shutil.copytree(REPO / "tests" / "fixtures" / "edgellm_mini", proj)
    target = proj / "cpp" / "kernels" / "fooKernels.cu"
    uri = target.as_uri()
    proc = subprocess.Popen([str(installed / "trtlint"), "lsp"], cwd=proj, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    try:
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                 "params": {"processId": None, "rootUri": proj.as_uri(), "capabilities": {}}}))
        proc.stdin.flush()
        deadline = time.monotonic() + 120
        while True:
            m = _read_message(proc.stdout, deadline)
            if m.get("id") == 1:
                break
        assert "capabilities" in m.get("result", {}), m
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "cuda", "version": 1, "text": target.read_text()}}}))
        proc.stdin.flush()
        while True:
            m = _read_message(proc.stdout, deadline)
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri \
                    and m["params"]["diagnostics"]:
                break
        assert "TRT301" in {d.get("code") for d in m["params"]["diagnostics"]}, m
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.flush()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        err = proc.stderr.read().decode("utf-8", "replace")
        assert "Traceback" not in err, err
