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
# nor trtlint's own modules that build, extract, index and check: the fact vocabulary (~50 dataclasses; the memo's
# findings need only base.span), the index, the build model's readers, the frontends (the package's __init__
# holds the SourceFile discovery makes: allowed)
OWN_NOT_ON_A_WARM_RUN = ("trtlint.base.facts", "trtlint.index.project_index", "trtlint.pipeline.buildmodel",
                         "trtlint.pipeline.state", "trtlint.pipeline.check", "trtlint.pipeline.cpp_expand",
                         "trtlint.frontends.cpp", "trtlint.frontends.python", "trtlint.frontends.cmake")
# the modules of trtlint/checks/ a warm run imports: the rule base, the registry and its code table (the selectors
# are judged against the table; no rule module is imported)
CHECKS_ON_A_WARM_RUN = {"trtlint.checks", "trtlint.checks.base", "trtlint.checks.registry", "trtlint.checks.codes"}

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
        own = [m for m in warm["modules"] if m in OWN_NOT_ON_A_WARM_RUN
               or (m.startswith("trtlint.checks") and m not in CHECKS_ON_A_WARM_RUN)]
        assert own == [], f"a warm check imported {own}"
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
    (copy,) = [p for p in (tmp_path / "usercache" / "trtlint" / "packs").glob("*.json")
               if not p.name.endswith("-profiles.json")]
    copy.write_text('{"key": "x", "names": [], "packs": []}', encoding="utf-8")
    second, out = _probe(tree, env, "--no-cache")
    assert "yaml" in second["modules"]  # the copy was refused: the YAML was parsed
    assert _untimed(out) == _untimed(first.stdout)
    assert json.loads(copy.read_text(encoding="utf-8"))["names"]  # and the copy written again


def _program(root: Path, d: str) -> None:
    """A CMake program in ``root/d``: the requirements fixture's plugin and builder script, with no pin."""
    shutil.copytree(REPO / "tests" / "fixtures" / "trt_version" / "requirements", root / d)
    (root / d / "requirements.txt").unlink()
    (root / d / "CMakeLists.txt").write_text(f"project({d})\nadd_library({d} SHARED plugins/foo.cpp)\n",
                                             encoding="utf-8")


def test_a_pin_added_beside_a_program_misses_the_memo(tmp_path):
    """A warm run builds no build model, so the directories whose requirement files may pin a TensorRT release
    (the programs') come from the memo: a requirements.txt added in a program's directory (a file discovery does
    not list) still makes the next run check again, with the findings of a run without a cache."""
    root = tmp_path / "proj"
    for d in ("alpha", "beta"):
        _program(root, d)
    env = _env(tmp_path)
    args = ("--format", "json", "--select", "TRT207")
    first = json.loads(_check(root, env, *args).stdout)["diagnostics"]
    assert json.loads(_check(root, env, *args).stdout)["diagnostics"] == first  # the memo answers
    assert not any("inferred from" in d["message"] for d in first)
    (root / "beta" / "requirements.txt").write_text("tensorrt>=10,<11\n", encoding="utf-8")
    warm = json.loads(_check(root, env, *args).stdout)["diagnostics"]
    fresh = json.loads(_check(root, env, *args, "--no-cache").stdout)["diagnostics"]
    assert warm == fresh
    assert any("inferred from beta/requirements.txt" in d["message"] for d in warm), warm


def test_a_warm_sarif_report_describes_the_rules_that_ran(tmp_path):
    """The run memo keeps no rule classes (a warm run imports no rule module), yet the SARIF report's rules array
    is that of the cold run: the rule modules are imported for it."""
    tree = tmp_path / "proj"
    shutil.copytree(FIXTURE, tree, ignore=shutil.ignore_patterns(".trtlint_cache"))
    env = _env(tmp_path)
    cold = json.loads(_check(tree, env, "--format", "sarif").stdout)
    warm, out = _probe(tree, env, "--format", "sarif")
    assert any(m.startswith("trtlint.checks.plugin.") for m in warm["modules"])  # imported for the report
    runs = json.loads(out)["runs"]
    assert runs[0]["tool"]["driver"]["rules"] == cold["runs"][0]["tool"]["driver"]["rules"]
    assert len(runs[0]["tool"]["driver"]["rules"]) > 10
    assert runs[0]["results"] == cold["runs"][0]["results"]
