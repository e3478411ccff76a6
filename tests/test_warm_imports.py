"""A warm ``trtlint check`` (nothing changed: the run memo answers) imports no parser library (issue 36).

Not timed (no test depends on the machine's speed; ``bench/warm_imports.py`` times it): the child process runs
trtlint's main and prints its ``sys.modules`` at exit, and the parser libraries must not be among them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "edgellm_mini"

# libclang's bindings, libcst, onnx (extraction); PyYAML (the shipped packs: read from their parsed JSON copy);
# jsonschema (user packs only); numpy (onnx's); rich and pygls (not used by check)
NOT_ON_A_WARM_RUN = ("clang", "clang.cindex", "libcst", "onnx", "yaml", "jsonschema", "numpy", "rich", "pygls")

_PROBE = r"""
import json, runpy, sys
sys.argv = ["trtlint"] + sys.argv[1:]
code = 0
try:
    runpy.run_module("trtlint", run_name="__main__")
except SystemExit as e:
    code = e.code
sys.stdout.flush()
print("\n" + json.dumps({"exit": code, "modules": sorted(sys.modules)}))
"""


def _untimed(text: str) -> str:
    """A text report without its run time ("... checked (0.02 s).")."""
    return re.sub(r"\(\d+\.\d+ s\)", "(T)", text.rstrip())


def _env(tmp: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO), XDG_CACHE_HOME=str(tmp / "usercache"))
    return env


def _check(tree: Path, env: dict, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "trtlint", "check", str(tree), "--no-progress", *extra],
                          env=env, cwd=tree, capture_output=True, text=True, timeout=600)


def _probe(tree: Path, env: dict, *extra: str) -> tuple[dict, str]:
    p = subprocess.run([sys.executable, "-c", _PROBE, "check", str(tree), "--no-progress", *extra],
                       env=env, cwd=tree, capture_output=True, text=True, timeout=600)
    last = p.stdout.rstrip().splitlines()[-1]
    return json.loads(last), p.stdout.rstrip()[: -len(last)].rstrip()


def test_a_warm_check_imports_no_parser_library(tmp_path):
    tree = tmp_path / "proj"
    shutil.copytree(FIXTURE, tree, ignore=shutil.ignore_patterns(".trtlint_cache"))
    env = _env(tmp_path)
    cold = _check(tree, env)
    assert cold.returncode == 1, cold.stderr  # the fixture has findings
    assert (tmp_path / "usercache" / "trtlint" / "packs").is_dir()  # the parsed packs were kept
    # a run that parses the packs imports PyYAML in the CLI's process (the probe sees it; libcst and
    # libclang are imported by the extraction workers, never here)
    cold_probe, _ = _probe(tree, {**env, "XDG_CACHE_HOME": str(tmp_path / "other")}, "--no-cache")
    assert "yaml" in cold_probe["modules"]
    cold_json = json.loads(_check(tree, {**env, "XDG_CACHE_HOME": str(tmp_path / "other")}, "--no-cache",
                                  "--format", "json").stdout)
    for extra in ((), ("--format", "json")):
        warm, out = _probe(tree, env, *extra)
        assert warm["exit"] == 1
        imported = [m for m in NOT_ON_A_WARM_RUN if m in warm["modules"]]
        assert imported == [], f"a warm check imported {imported}"
        # and it reported the cold run's findings
        if extra:
            assert json.loads(out)["diagnostics"] == cold_json["diagnostics"]
        else:
            assert _untimed(out) == _untimed(cold.stdout)


def test_an_edited_pack_copy_is_parsed_again(tmp_path):
    """The parsed packs' copy is named by the packs' bytes: a copy that is corrupt is not used (the run
    parses the YAML again and reports the same findings)."""
    tree = tmp_path / "proj"
    shutil.copytree(FIXTURE, tree, ignore=shutil.ignore_patterns(".trtlint_cache"))
    env = _env(tmp_path)
    first = _check(tree, env, "--no-cache")
    (copy,) = (tmp_path / "usercache" / "trtlint" / "packs").glob("*.json")
    copy.write_text('{"key": "x", "names": [], "packs": []}', encoding="utf-8")
    second, out = _probe(tree, env, "--no-cache")
    assert "yaml" in second["modules"]  # the copy was refused: the YAML was parsed
    assert _untimed(out) == _untimed(first.stdout)
    assert json.loads(copy.read_text(encoding="utf-8"))["names"]  # and the copy written again
