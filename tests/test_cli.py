"""The command line, run as users run it: a real subprocess of `python -m trtlint`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


from .helpers import write_project
from .sarif_schema import validate_sarif

FIXTURE = Path(__file__).parent / "fixtures" / "edgellm_mini"


def trtlint(*args: str, cwd: Path | None = None, input: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "trtlint", *args], capture_output=True, text=True, cwd=cwd, env=env, input=input, timeout=300
    )


def snapshot(root: Path) -> dict[str, float]:
    return {p.relative_to(root).as_posix(): p.stat().st_mtime_ns for p in root.rglob("*")}


def test_check_fixture_text_exit_1_and_writes_nothing(tmp_path):
    import shutil

    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    before = snapshot(proj)
    r = trtlint("check", str(proj), "--no-cache")
    assert r.returncode == 1, r.stderr
    assert "error[TRT101] plugin-name-mismatch" in r.stdout
    from tests.test_fixture_project import EXPECTED

    assert f"Found {len(EXPECTED)} problems (" in r.stdout
    assert "Traceback" not in r.stderr
    assert snapshot(proj) == before  # --no-cache: nothing written in the project


def test_cache_is_the_only_thing_written_and_is_gitignored(tmp_path):
    import shutil

    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    before = set(snapshot(proj))
    r1 = trtlint("check", str(proj), "--format", "json")
    r2 = trtlint("check", str(proj), "--format", "json")
    after = set(snapshot(proj))
    assert {p.split("/")[0] for p in after - before} == {".trtlint_cache"}
    assert (proj / ".trtlint_cache" / ".gitignore").read_text().strip().endswith("*")
    d1, d2 = json.loads(r1.stdout), json.loads(r2.stdout)
    assert d1["diagnostics"] == d2["diagnostics"]  # warm run: same findings from the cache
    r3 = trtlint("clean", str(proj))
    assert r3.returncode == 0 and not (proj / ".trtlint_cache").exists()


def test_json_output_to_file(tmp_path):
    out = tmp_path / "report.json"
    r = trtlint("check", str(FIXTURE), "--no-cache", "--format", "json", "--output", str(out))
    assert r.returncode == 1
    assert r.stdout == ""
    data = json.loads(out.read_text())
    assert data["version"] == 1
    from tests.test_fixture_project import EXPECTED

    assert data["summary"]["findings"] == len(EXPECTED)
    assert {d["code"] for d in data["diagnostics"]} == {e[0] for e in EXPECTED}
    # with no text report, what was analysed and the TensorRT release judged against still reach the person
    # running it, on stderr, as the text report's last lines say them
    text = trtlint("check", str(FIXTURE), "--no-cache", "--no-progress")
    tail = [line for line in text.stdout.splitlines() if line.startswith(("analysed ", "TensorRT ", "no TensorRT"))]
    assert tail and all(line in r.stderr.splitlines() for line in tail)


def test_sarif_of_the_fixture_is_mapped_and_valid_against_the_official_schema():
    r = trtlint("check", str(FIXTURE), "--no-cache", "--format", "sarif")
    sarif = json.loads(r.stdout)
    run = sarif["runs"][0]
    rules = {r["id"]: r["name"] for r in run["tool"]["driver"]["rules"]}
    assert rules["TRT101"] == "plugin-name-mismatch"
    res = [x for x in run["results"] if x["ruleId"] == "TRT102"]
    assert res and all(x["relatedLocations"] for x in res)  # the other side of the contract
    validate_sarif(sarif)  # last: only this needs the schema file (it skips locally without it, fails in CI)


def test_select_ignore_and_exit_codes(tmp_path):
    r = trtlint("check", str(FIXTURE), "--no-cache", "--select", "TRT4", "--format", "json")
    data = json.loads(r.stdout)
    from tests.test_fixture_project import EXPECTED

    assert {d["code"] for d in data["diagnostics"]} == {e[0] for e in EXPECTED if e[0].startswith("TRT4")}
    # TRT304 is not in EXPECTED: it is a note of the TRT301/TRT302 findings on the same calls, and reported once
    # those are ignored (the more specific rule takes a call over only when it is selected)
    others = sorted({e[0] for e in EXPECTED if e[0] != "TRT401"} | {"TRT304"})
    r = trtlint("check", str(FIXTURE), "--no-cache", "--ignore", ",".join(others + ["cuda-source-in-plugins-dir"]))
    assert r.returncode == 0, r.stdout
    assert "All checks passed" in r.stdout
    r = trtlint("check", str(FIXTURE), "--no-cache", "--exit-zero")
    assert r.returncode == 0


def test_usage_and_config_errors_exit_2(tmp_path):
    assert trtlint("check", str(tmp_path / "nope")).returncode == 2
    assert trtlint("frobnicate").returncode == 2
    write_project(tmp_path, {"trtlint.toml": "select = [\n", "a.py": "x = 1\n"})
    r = trtlint("check", str(tmp_path))
    assert r.returncode == 2
    assert "trtlint.toml" in r.stderr and "invalid TOML" in r.stderr
    assert "Traceback" not in r.stderr
    write_project(tmp_path, {"trtlint.toml": "selekt = ['TRT1']\n"})
    r = trtlint("check", str(tmp_path))
    assert r.returncode == 2 and "unknown setting 'selekt'; did you mean 'select'?" in r.stderr


def test_unknown_rule_in_config_is_trt003(tmp_path):
    # per-file-ignores and severity: a finding (TRT003); select/extend-select/ignore: a config error (exit 2)
    write_project(tmp_path, {"trtlint.toml": '[per-file-ignores]\n"a.py" = ["TRT999"]\n', "a.py": "x = 1\n"})
    r = trtlint("check", str(tmp_path), "--no-cache", "--format", "json")
    data = json.loads(r.stdout)
    assert [(d["code"], d["location"]["path"], d["location"]["line"]) for d in data["diagnostics"]] == [
        ("TRT003", "trtlint.toml", 2)
    ]
    write_project(tmp_path, {"trtlint.toml": 'ignore = ["TRT999"]\n'})
    r = trtlint("check", str(tmp_path), "--no-cache", "--format", "json")
    assert r.returncode == 2 and r.stdout == ""
    assert "trtlint.toml:1: 'ignore': no rule matches 'TRT999' (see `trtlint rules`)" in r.stderr


def test_rule_docs_commands():
    r = trtlint("rule", "plugin-name-mismatch", "--format", "markdown")
    assert r.returncode == 0 and r.stdout.startswith("# TRT101 plugin-name-mismatch")
    r = trtlint("rule", "TRT999")
    assert r.returncode == 2 and "no rule 'TRT999'" in r.stderr
    r = trtlint("rules", "--format", "json")
    codes = [x["code"] for x in json.loads(r.stdout)]
    assert codes == sorted(codes) and "TRT301" in codes


def test_files_given_report_only_those_files():
    r = trtlint(
        "check",
        str(FIXTURE / "tensorrt_edgellm" / "onnx" / "dynamo_translations.py"),
        "--root",
        str(FIXTURE),
        "--no-cache",
        "--format",
        "json",
    )
    data = json.loads(r.stdout)
    paths = {d["location"]["path"] for d in data["diagnostics"]}
    assert paths == {"tensorrt_edgellm/onnx/dynamo_translations.py"}
    assert len(data["diagnostics"]) == 3  # but judged against the whole project's creators


def test_a_loose_file_outside_any_project_is_checked_alone(tmp_path):
    write_project(tmp_path, {f"other{i}.py": "x = 1\n" for i in range(20)})
    write_project(tmp_path, {"t.py": "import tensorrt as trt\ndef f(:\n    trt.PluginField('a')\n"})
    before = snapshot(tmp_path)
    r = trtlint("check", str(tmp_path / "t.py"), "--format", "json")
    data = json.loads(r.stdout)
    assert data["summary"]["files_checked"] == 1
    assert [d["code"] for d in data["diagnostics"]] == ["TRT001"]
    assert snapshot(tmp_path) == before  # no cache directory beside loose files


def test_config_show_names_each_source(tmp_path):
    write_project(tmp_path, {"pyproject.toml": '[tool.trtlint]\nignore = ["TRT301"]\n', "a.py": ""})
    r = trtlint("config", str(tmp_path))
    assert r.returncode == 0
    assert f"config file: {tmp_path / 'pyproject.toml'}" in r.stdout
    assert "profile: generic (detected)" in r.stdout
    assert f"ignore = ['TRT301']    # {tmp_path / 'pyproject.toml'}" in r.stdout
    assert "select = ['DEFAULT']    # default" in r.stdout


def test_what_the_profiles_exclude_keeps_out_is_said(tmp_path):
    """A detected profile's exclude patterns (Torch-TensorRT's: rendered docs with a copy of every example) are not
    the user's: the run names what they kept out, on the project line and in the JSON report's project, and the
    files are not checked. The user's own exclude patterns are not repeated back."""
    write_project(tmp_path, {
        "py/torch_tensorrt/dynamo/conversion/ops.py": "x = 1\n",
        "docs/v1/_downloads/plugin.py": "import tensorrt as trt\ntrt.get_plugin_registry().get_plugin_creator('P', '1')\n",
        "third_party/lib/a.py": "y = 2\n",
        "build/gen.py": "z = 3\n",
        "pyproject.toml": '[tool.trtlint]\nexclude = ["build/**"]\n',
    })
    r = trtlint("check", str(tmp_path), "--format", "json", "--no-cache", "--exit-zero")
    data = json.loads(r.stdout)
    assert data["project"]["profile"] == "torch-tensorrt"
    assert data["project"]["excluded_by_profile"] == ["docs/", "third_party/"]
    assert data["summary"]["files_checked"] == 1  # ops.py
    first = r.stderr.splitlines()[0]
    assert first.endswith("(profile torch-tensorrt, detected); not checked: docs/, third_party/ "
                          "(the torch-tensorrt profile's exclude)"), first
