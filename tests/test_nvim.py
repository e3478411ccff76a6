"""A real editor: headless Neovim's built-in LSP client attached to `trtlint lsp` by the Neovim snippet of
docs/editors.md, run as the page shows it.

.ci/run installs Neovim (Debian package `neovim`); the test skips only when `nvim` is truly absent.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).parent / "fixtures" / "edgellm_mini"
SCRIPT = Path(__file__).parent / "nvim" / "record_diagnostics.lua"
TRANSLATIONS = "tensorrt_edgellm/onnx/dynamo_translations.py"
FOO_CPP = "cpp/plugins/fooPlugin/fooPlugin.cpp"
EDITORS_MD = REPO / "docs" / "editors.md"


def neovim_snippet(page: Path) -> str:
    """The ```lua block of the page's Neovim section."""
    text = page.read_text(encoding="utf-8")
    section = text[text.index("### Neovim"):]
    m = re.search(r"```lua\n(.*?)```", section, re.S)
    assert m, f"{page}: no lua block in the Neovim section"
    return m.group(1)


@pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim (nvim) is not installed: `apt-get install neovim` (.ci/run does)")
def test_neovim_builtin_lsp_client_receives_trtlint_diagnostics(tmp_path):
    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    (proj / "trtlint.toml").write_text("# the project's config: makes the project root\n")
    # a nested config (subconfig.py) below it: the Python file's nearest config, not its project root
    (proj / "tensorrt_edgellm" / "trtlint.toml").write_text("# a nested config\n")
    snippet = tmp_path / "snippet.lua"
    snippet.write_text(neovim_snippet(EDITORS_MD))
    # the snippet runs `trtlint lsp` from PATH: make that this interpreter's trtlint
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "trtlint"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m trtlint "$@"\n')
    shim.chmod(0o755)
    elsewhere = tmp_path / "elsewhere"  # the current directory, outside the project
    elsewhere.mkdir()
    out = tmp_path / "diagnostics.json"
    before = (proj / FOO_CPP).read_text()
    env = dict(os.environ)
    env.update(
        TRTLINT_NVIM_SNIPPET=str(snippet),
        TRTLINT_NVIM_PY=str(proj / TRANSLATIONS),
        TRTLINT_NVIM_CPP=str(proj / FOO_CPP),
        TRTLINT_NVIM_OUT=str(out),
        PATH=str(bindir) + os.pathsep + env.get("PATH", ""),
        PYTHONPATH=str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
    )
    r = subprocess.run(
        ["nvim", "--headless", "--clean", "-u", "NONE", "-c", f"luafile {SCRIPT}"],
        cwd=elsewhere, env=env, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL,
    )
    assert out.is_file(), f"nvim wrote no result (exit {r.returncode}):\n{r.stdout}\n{r.stderr}"
    result = json.loads(out.read_text())
    assert "error" not in result, result
    # one server for the project: both buffers share one client, rooted at the project (not the cwd)
    clients = [c for c in result["clients"] if c["name"] == "trtlint"]
    assert len(clients) == 1, clients
    assert result["py_clients"] == result["cpp_clients"] == [clients[0]["id"]], result
    assert Path(clients[0]["root_dir"]).resolve() == proj.resolve()
    steps = {s["name"]: s for s in result["steps"]}

    def at(step):
        return {(d["code"], d["line"]) for d in steps[step]["diagnostics"]}

    # on open: the Python file's findings as Neovim stores them
    assert steps["open"]["ok"], steps["open"]
    assert at("open") == {("TRT101", 32), ("TRT102", 22), ("TRT103", 17)}
    d101 = next(d for d in steps["open"]["diagnostics"] if d["code"] == "TRT101")
    assert d101["source"] == "trtlint" and "FooPlugn" in d101["message"] and d101["col"] == 12
    # an unsaved edit of the C++ name constant: the Python side's finding appears
    assert steps["cpp-edit"]["ok"], steps["cpp-edit"]
    assert {("TRT101", 12), ("TRT101", 17)} <= at("cpp-edit")
    # changed back: cleared again
    assert steps["cpp-revert"]["ok"], steps["cpp-revert"]
    assert at("cpp-revert") == at("open")
    assert (proj / FOO_CPP).read_text() == before  # the server never writes
