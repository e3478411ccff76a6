"""Adopting trtlint in a codebase with findings: baseline, fixes, suppression hygiene, config hierarchy.

Run as users run it (a subprocess of `python -m trtlint`) on copies of the fixture project, plus unit tests
of the pieces (fingerprints, edit application, refusal of changed files).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from trtlint.adoption.baseline import Baseline, apply_baseline, load_baseline, normalise_snippet
from trtlint.config.settings import load_settings
from trtlint.base.diagnostics import Edit
from trtlint.pipeline.run import run
from trtlint.base.facts import Span
from trtlint.base.fixes import apply_edits, plan_fixes, write_fixes

from .helpers import check_project, write_project
from .test_cli import FIXTURE, snapshot, trtlint

TRANSLATIONS = "tensorrt_edgellm/onnx/dynamo_translations.py"
KERNELS = "cpp/kernels/fooKernels.cu"

from tests.test_fixture_project import EXPECTED  # noqa: E402

N = len(EXPECTED)  # the fixture's findings (it grows as rules land)


def _copy(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    return proj


def _json(r) -> list[dict]:
    assert "Traceback" not in r.stderr, r.stderr
    return json.loads(r.stdout)["diagnostics"]


def _snap(root: Path) -> dict:
    """The project's files and their mtimes, without trtlint's own cache."""
    return {k: v for k, v in snapshot(root).items() if not k.startswith(".trtlint_cache")}


def _edit(p: Path, old: str, new: str, count: int = 1) -> None:
    text = p.read_text(encoding="utf-8")
    assert text.count(old) >= 1, old
    p.write_text(text.replace(old, new, count), encoding="utf-8")


# --- baseline ---------------------------------------------------------------------------------------------


def test_baseline_survives_shifted_lines_and_reports_exactly_the_new_drift(tmp_path):
    proj = _copy(tmp_path)
    bl = tmp_path / "baseline.json"
    r = trtlint("check", str(proj), "--write-baseline", str(bl))
    assert r.returncode == 0, r.stderr
    assert "Wrote" in r.stderr and f"{N} findings" in r.stderr
    data = json.loads(bl.read_text())
    assert data["version"] == 1 and sum(e.get("count", 1) for e in data["findings"]) == N
    assert all("line" in e and "fingerprint" in e for e in data["findings"])

    # every line of both files shifts, and a line with a finding is re-spaced: still known
    _edit(proj / TRANSLATIONS, '"""onnxscript', '# a new header line\n\n\n"""onnxscript')
    _edit(proj / TRANSLATIONS, "_trt_edgellm.FooPlugn(x, alpha=1.0)", "_trt_edgellm.FooPlugn( x,  alpha=1.0 )")
    k = (proj / KERNELS).read_text()
    (proj / KERNELS).write_text("// moved down\n// by two lines\n" + k)
    r = trtlint("check", str(proj), "--baseline", str(bl), "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert _json(r) == []
    assert f"{N} known findings hidden" in r.stderr

    # one drift: exactly that drift is reported
    _edit(proj / TRANSLATIONS, "alpha=alpha, num_heads=num_heads)\n", "alpha=alpha, num_head=num_heads)\n")
    r = trtlint("check", str(proj), "--baseline", str(bl), "--format", "json")
    assert r.returncode == 1
    got = _json(r)
    assert [(d["code"], d["location"]["path"], d["location"]["line"]) for d in got] == [("TRT103", TRANSLATIONS, 15)]
    assert "attribute 'num_head'" in got[0]["message"]


def test_a_fixed_finding_is_reported_as_fixed_and_write_baseline_prunes_it(tmp_path):
    proj = _copy(tmp_path)
    bl = proj / "trtlint-baseline.json"
    assert trtlint("check", str(proj), "--write-baseline", str(bl)).returncode == 0
    _edit(proj / TRANSLATIONS, "_trt_edgellm.FooPlugn(", "_trt_edgellm.FooPlugin(")
    r = trtlint("check", str(proj), "--baseline", str(bl), "--no-source")
    assert r.returncode == 0, r.stdout + r.stderr  # a fixed finding is information, not a failure
    assert "1 finding no longer occurs (fixed" in r.stderr
    assert f"fixed: {TRANSLATIONS}: TRT101 FooPlugn:" in r.stderr
    r = trtlint("check", str(proj), "--write-baseline", str(bl))
    assert r.returncode == 0
    assert f"pruned (fixed): {TRANSLATIONS}: TRT101 FooPlugn" in r.stderr
    assert sum(e.get("count", 1) for e in json.loads(bl.read_text())["findings"]) == N - 1
    r = trtlint("check", str(proj), "--baseline", str(bl))
    assert r.returncode == 0 and "no longer occur" not in r.stderr


def test_checking_some_rules_or_files_neither_fixes_nor_prunes_the_others(tmp_path):
    proj = _copy(tmp_path)
    bl = tmp_path / "bl.json"
    assert trtlint("check", str(proj), "--write-baseline", str(bl)).returncode == 0
    r = trtlint("check", str(proj), "--baseline", str(bl), "--select", "TRT1")
    assert r.returncode == 0 and "no longer occur" not in r.stderr, r.stderr
    r = trtlint("check", str(proj / TRANSLATIONS), "--baseline", str(bl))
    assert r.returncode == 0 and "no longer occur" not in r.stderr, r.stderr
    r = trtlint("check", str(proj), "--write-baseline", str(bl), "--select", "TRT3")
    assert "pruned" not in r.stderr
    assert sum(e.get("count", 1) for e in json.loads(bl.read_text())["findings"]) == N


def test_fix_leaves_findings_the_baseline_hides_alone(tmp_path):
    write_project(tmp_path, {".git/HEAD": "", "a.py": "x = 1  # trtlint: ignore[TRT101]\n"})
    bl = tmp_path / "bl.json"
    assert trtlint("check", str(tmp_path), "--write-baseline", str(bl), "--no-cache").returncode == 0
    (tmp_path / "a.py").write_text("x = 1  # trtlint: ignore[TRT101]\ny = 2  # trtlint: ignore[TRT103]\n")
    r = trtlint("check", str(tmp_path), "--baseline", str(bl), "--fix", "--no-cache")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Fixed 1 finding" in r.stderr
    assert (tmp_path / "a.py").read_text() == "x = 1  # trtlint: ignore[TRT101]\ny = 2\n"


def test_baseline_from_config_relative_to_the_config_file(tmp_path):
    proj = _copy(tmp_path)
    (proj / "tools").mkdir()
    (proj / "pyproject.toml").write_text('[tool.trtlint]\nbaseline = "tools/trtlint-baseline.json"\n')
    r = trtlint("check", str(proj), "--write-baseline")
    assert r.returncode == 0, r.stderr
    assert (proj / "tools" / "trtlint-baseline.json").is_file()
    r = trtlint("check", str(proj), "--format", "json")
    assert r.returncode == 0 and _json(r) == []
    r = trtlint("check", str(proj), "--baseline", str(tmp_path / "missing.json"))
    assert r.returncode == 2 and "baseline file not found" in r.stderr


def test_baseline_counts_findings_that_share_a_fingerprint(tmp_path):
    files = {
        "cpp/plugins/foo/fooPlugin.cpp": "",
        "a.py": "import tensorrt as trt\nr = trt.get_plugin_registry()\nr.get_creator('FooPlugn', '1', '')\n",
    }
    from trtlint.checks.examples.contract import creator_cpp

    files["cpp/plugins/foo/fooPlugin.cpp"] = creator_cpp("FooPlugin")
    write_project(tmp_path, files)
    res = check_project(tmp_path, select=["TRT101"])
    assert len(res.diagnostics) == 1
    b = Baseline.from_diagnostics(res.diagnostics)
    # the same line twice more (one function further down): two new findings, the first one stays known
    (tmp_path / "a.py").write_text(files["a.py"] + "\n\nr.get_creator('FooPlugn', '1', '')\nr.get_creator('FooPlugn', '1', '')\n")
    res = check_project(tmp_path, select=["TRT101"])
    out = apply_baseline(res.diagnostics, b)
    assert [d.span.line for d in out.known] == [3] and [d.span.line for d in out.new] == [6, 7]
    assert out.fixed == []


def test_snippet_normalisation_ignores_spacing_and_suppression_comments():
    assert normalise_snippet("  return  f(x, y)  # trtlint: ignore[TRT101] -- why") == "returnf(x,y)"
    assert normalise_snippet("cudaMalloc(&p, n);  // trtlint: ignore[TRT301]") == "cudaMalloc(&p,n);"


def test_broken_baseline_file_is_a_clear_error(tmp_path):
    bl = tmp_path / "b.json"
    bl.write_text("{not json")
    proj = _copy(tmp_path)
    r = trtlint("check", str(proj), "--baseline", str(bl))
    assert r.returncode == 2 and "not a trtlint baseline" in r.stderr and "Traceback" not in r.stderr
    bl.write_text('{"version": 1, "findings": [{"code": "TRT101"}]}')
    try:
        load_baseline(bl)
        raise AssertionError("expected an error")
    except Exception as e:
        assert "findings[0]" in str(e)


# --- fixes ------------------------------------------------------------------------------------------------


def test_diff_writes_nothing_fix_applies_and_a_second_fix_is_a_no_op(tmp_path):
    proj = _copy(tmp_path)
    before = _snap(proj)
    r = trtlint("check", str(proj), "--diff", "--unsafe-fixes")
    assert r.returncode == 1
    assert f"--- a/{TRANSLATIONS}\n+++ b/{TRANSLATIONS}" in r.stdout
    assert "-    return _trt_edgellm.FooPlugn(x, alpha=1.0)\n+    return _trt_edgellm.FooPlugin(x, alpha=1.0)" in r.stdout
    assert "nothing written" in r.stderr
    assert _snap(proj) == before

    # without --unsafe-fixes the rename is not applied (it is unsafe)
    r = trtlint("check", str(proj), "--fix", "--format", "json")
    assert "FooPlugn" in (proj / TRANSLATIONS).read_text()
    assert "more with --unsafe-fixes" in r.stderr

    r = trtlint("check", str(proj), "--fix", "--unsafe-fixes", "--format", "json")
    assert "Fixed 1 finding" in r.stderr, r.stderr
    text = (proj / TRANSLATIONS).read_text()
    assert "_trt_edgellm.FooPlugin(x, alpha=1.0)" in text and "FooPlugn" not in text
    assert not any(d["code"] == "TRT101" and d["location"]["path"] == TRANSLATIONS for d in _json(r))
    after = _snap(proj)
    r = trtlint("check", str(proj), "--fix", "--unsafe-fixes", "--format", "json")
    assert "Fixed 0 findings" in r.stderr
    assert _snap(proj) == after


def test_rename_fixes_only_when_one_candidate_is_close(tmp_path):
    from trtlint.checks.examples.contract import backend_py, creator_cpp, onnxscript_py

    write_project(
        tmp_path,
        {
            "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", "2", fields=(("alpha", "kFLOAT32"), ("num_heads", "kINT32"))),
            "cpp/plugins/bar/barPlugin.cpp": creator_cpp("BarPlugin", cls="BarCreator"),
            "cpp/plugins/bar/bazPlugin.cpp": creator_cpp("BazPlugin", cls="BazCreator"),
            "builder/backend.py": backend_py('{"foo": "FooPlugn"}'),
            "py/a.py": onnxscript_py("FooPlugin", 'alpha=1.0, plugin_version="1"'),
            "py/d.py": onnxscript_py("FooPlugin", 'alpha=1.0, num_head=2, plugin_version="2"'),
            "py/b.py": onnxscript_py("BaxPlugin"),  # BarPlugin and BazPlugin are both close: no fix
            "py/c.py": "import tensorrt as trt\ntrt.get_plugin_registry().get_creator('FooPlugn', '2', '')\n",
        },
    )
    res = check_project(tmp_path, select=["TRT101", "TRT102", "TRT103"])
    fixes = {(d.code, d.span.path): (d.fix.applicability, d.fix.message) if d.fix else None for d in res.diagnostics}
    assert fixes == {
        ("TRT101", "builder/backend.py"): ("unsafe", "rename 'FooPlugn' to the registered 'FooPlugin'"),
        ("TRT101", "py/b.py"): None,
        ("TRT101", "py/c.py"): ("unsafe", "rename 'FooPlugn' to the registered 'FooPlugin'"),
        ("TRT102", "py/a.py"): ("unsafe", "ask for the registered version '2'"),
        ("TRT103", "py/d.py"): ("unsafe", "rename attribute 'num_head' to the declared field 'num_heads'"),
    }
    plan = plan_fixes(res.diagnostics, tmp_path, {f.rel: f.digest for f in res.discovery.files}, unsafe=True)
    assert plan.refused == []
    after = {f.path: f.after for f in plan.files}
    assert after["py/a.py"].endswith('_plugins.FooPlugin(x, alpha=1.0, plugin_version="2")\n')
    assert after["py/d.py"].endswith('_plugins.FooPlugin(x, alpha=1.0, num_heads=2, plugin_version="2")\n')
    assert '{"foo": "FooPlugin"}' in after["builder/backend.py"]
    assert "get_creator('FooPlugin', '2', '')" in after["py/c.py"]
    assert plan_fixes(res.diagnostics, tmp_path, {}, unsafe=False).files == []  # all unsafe


def test_fix_only_and_exit_non_zero_on_fix(tmp_path):
    write_project(
        tmp_path,
        {".git/HEAD": "", "a.py": "x = 1  # trtlint: ignore[TRT101]\ny = 2\n# trtlint: ignore[TRT301]\nz = 3\n"},
    )
    r = trtlint("check", str(tmp_path), "--fix-only", "--exit-non-zero-on-fix", "--no-cache")
    assert r.returncode == 1 and r.stdout == ""
    assert "Fixed 2 findings" in r.stderr
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 2\nz = 3\n"
    r = trtlint("check", str(tmp_path), "--fix-only", "--exit-non-zero-on-fix", "--no-cache")
    assert r.returncode == 0


def test_a_file_changed_since_it_was_read_is_refused(tmp_path):
    from trtlint.checks.examples.contract import creator_cpp, onnxscript_py

    write_project(tmp_path, {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"), "t.py": onnxscript_py("FooPlugn")})
    res = check_project(tmp_path, select=["TRT101"])
    digests = {f.rel: f.digest for f in res.discovery.files}
    (tmp_path / "t.py").write_text(onnxscript_py("FooPlugn") + "# edited in the editor meanwhile\n")
    plan = plan_fixes(res.diagnostics, tmp_path, digests, unsafe=True)
    assert plan.files == []
    assert plan.refused == ["t.py: changed since trtlint read it; its fixes were not applied (run trtlint again)"]
    assert "FooPlugn" in (tmp_path / "t.py").read_text()

    # changed between planning and writing: refused as well
    res = check_project(tmp_path, select=["TRT101"])
    plan = plan_fixes(res.diagnostics, tmp_path, {f.rel: f.digest for f in res.discovery.files}, unsafe=True)
    assert len(plan.files) == 1
    (tmp_path / "t.py").write_text(onnxscript_py("FooPlugn") + "# again\n")
    write_fixes(plan, tmp_path)
    assert plan.files == [] and plan.fixed == []
    assert "t.py: changed since trtlint read it" in plan.refused[0]
    assert (tmp_path / "t.py").read_text().endswith("# again\n")


def test_fix_via_cli_on_a_file_changed_meanwhile_says_so(tmp_path):
    # the CLI path: the file changes after discovery (simulated by an edit of the expected text in the fix)
    from trtlint.checks.examples.contract import creator_cpp, onnxscript_py

    write_project(tmp_path, {".git/HEAD": "", "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"), "t.py": onnxscript_py("FooPlugn")})
    res = check_project(tmp_path, select=["TRT101"])
    d = res.diagnostics[0]
    stale = d.fix.edits[0]
    # an edit whose extent no longer holds the name (e.g. a stale LSP edit) is refused, not applied
    bad = type(d.fix)(d.fix.message, (Edit(Span("t.py", stale.span.line, stale.span.col - 1, stale.span.line, stale.span.end_col - 1), "FooPlugin", expect="FooPlugn"),), "unsafe")
    plan = plan_fixes([type(d)(**{**d.__dict__, "fix": bad})], tmp_path, {}, unsafe=True)
    assert plan.files == [] and "expected 'FooPlugn'" in plan.refused[0]


def test_edits_use_byte_columns_for_cpp_and_characters_for_python():
    cpp = 'auto s = "ü"; x(); // trtlint: ignore[TRT301]\n'
    # libclang counts bytes: "ü" is two, so the comment starts at byte column 21 (character column 20)
    start = cpp.index("//")
    out = apply_edits(cpp, "a.cpp", [Edit(Span("a.cpp", 1, len(cpp[:start].encode()) + 1, 1, len(cpp.encode())), "")])
    assert out == 'auto s = "ü"; x(); \n'
    py = 's = "ü"  # trtlint: ignore\n'
    start = py.index("#")
    out = apply_edits(py, "a.py", [Edit(Span("a.py", 1, start + 1, 1, len(py)), "")])
    assert out == 's = "ü"  \n'


def test_fix_keeps_file_mode_and_leaves_no_temp_files(tmp_path):
    write_project(tmp_path, {".git/HEAD": "", "run.py": "#!/usr/bin/env python3\nx = 1  # trtlint: ignore[TRT101]\n"})
    os.chmod(tmp_path / "run.py", 0o755)
    r = trtlint("check", str(tmp_path), "--fix", "--no-cache")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "run.py").read_text() == "#!/usr/bin/env python3\nx = 1\n"
    assert (tmp_path / "run.py").stat().st_mode & 0o777 == 0o755
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# --- suppression hygiene --------------------------------------------------------------------------------


def test_unused_suppression_fix_in_cpp_keeps_the_used_rule(tmp_path):
    proj = _copy(tmp_path)
    k = proj / KERNELS
    lines = k.read_text().split("\n")
    # line 17 is the cudaMalloc TRT301 reports; suppress it together with an unused rule, and add an unused one
    assert "cudaMalloc" in lines[16]
    lines[16] += "  // trtlint: ignore[TRT301, TRT302]"
    lines[0] += "  // trtlint: ignore[enqueue-allocation]"
    k.write_text("\n".join(lines))
    r = trtlint("check", str(proj), "--select", "TRT002,TRT301,TRT302", "--format", "json")
    got = sorted((d["code"], d["location"]["line"], d["message"]) for d in _json(r) if d["location"]["path"] == KERNELS)
    assert got == [
        ("TRT002", 1, "unused suppression: no enqueue-allocation (TRT301) finding on this line to hide"),
        ("TRT002", 17, "unused suppression: no TRT302 (enqueue-synchronization) finding on this line to hide"),
        ("TRT302", 24, got[2][2]),
    ]
    r = trtlint("check", str(proj), "--select", "TRT002,TRT301,TRT302", "--fix", "--format", "json")
    assert "Fixed 2 findings" in r.stderr
    new = k.read_text().split("\n")
    assert new[16].endswith("cudaMalloc" + lines[16].split("cudaMalloc", 1)[1].split("  //")[0] + "  // trtlint: ignore[TRT301]")
    assert new[0] == lines[0].split("  //")[0]
    assert [d["code"] for d in _json(r)] == ["TRT302"]


def test_no_blind_fix_for_a_suppression_inside_a_cpp_string(tmp_path):
    write_project(tmp_path, {"a.cpp": 'char const* s = "// trtlint: ignore[TRT301]";\nint x = 1;  // trtlint: ignore[TRT301]\n'})
    res = check_project(tmp_path)
    got = [(d.code, d.span.line, d.fix is not None) for d in res.diagnostics]
    assert got == [("TRT002", 1, False), ("TRT002", 2, True)]


def test_unused_per_file_ignores_entry_is_reported_at_its_config_line(tmp_path):
    from trtlint.checks.examples.contract import creator_cpp, onnxscript_py

    write_project(
        tmp_path,
        {
            "trtlint.toml": '[per-file-ignores]\n"py/**" = ["TRT101"]\n"tools/**" = ["TRT103", "TRT101"]\n',
            "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
            "py/t.py": onnxscript_py("FooPlugn"),
            "tools/x.py": "x = 1\n",
        },
    )
    res = run(load_settings(tmp_path), jobs=1, use_cache=False)
    got = [(d.code, d.span.path, d.span.line, d.message) for d in res.diagnostics]
    assert got == [
        ("TRT002", "trtlint.toml", 3, "unused suppression: per-file-ignores entry 'tools/**' = 'TRT101' hides no finding"),
        ("TRT002", "trtlint.toml", 3, "unused suppression: per-file-ignores entry 'tools/**' = 'TRT103' hides no finding"),
    ]


def test_add_suppressions_then_clean_then_no_op(tmp_path):
    proj = _copy(tmp_path)
    r = trtlint("check", str(proj), "--add-suppressions=legacy, see JIRA-1")
    assert "Traceback" not in r.stderr
    import re

    m = re.search(r"Added (\d+) suppressions", r.stderr)
    assert m and 0 < int(m.group(1)) <= N, r.stderr
    text = (proj / TRANSLATIONS).read_text()
    assert "return _trt_edgellm.FooPlugn(x, alpha=1.0)  # trtlint: ignore[TRT101] -- legacy, see JIRA-1" in text
    assert re.search(r"cudaMalloc.*// trtlint: ignore\[[^\]]*TRT301[^\]]*\] -- legacy, see JIRA-1", (proj / KERNELS).read_text())
    r = trtlint("check", str(proj), "--format", "json")
    assert r.returncode == 0 and _json(r) == []  # and no TRT002: every suppression hides its finding
    before = _snap(proj)
    r = trtlint("check", str(proj), "--add-suppressions")
    assert "Added 0 suppressions" in r.stderr and _snap(proj) == before


def test_add_suppressions_does_not_swallow_a_path_as_its_reason(tmp_path):
    write_project(tmp_path, {".git/HEAD": "", "a.py": "x = 1\n"})
    r = trtlint("check", "--add-suppressions", ".", cwd=tmp_path)
    assert r.returncode == 2 and "--add-suppressions=REASON" in r.stderr


def test_add_suppressions_goes_on_the_line_of_the_finding_in_a_multiline_call(tmp_path):
    from trtlint.checks.examples.contract import creator_cpp

    write_project(
        tmp_path,
        {
            ".git/HEAD": "",
            "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
            "a.py": 'import tensorrt as trt\nr = trt.get_plugin_registry()\nr.get_creator(\n    "FooPlugn", """1""", "")\n',
        },
    )
    r = trtlint("check", str(tmp_path), "--add-suppressions", "--no-cache", "--select", "TRT101")
    assert "Added 1 suppression in 1 file" in r.stderr
    assert (tmp_path / "a.py").read_text().endswith('    "FooPlugn", """1""", "")  # trtlint: ignore[TRT101] -- existing finding when trtlint was adopted\n')


# --- config hierarchy -----------------------------------------------------------------------------------


def test_config_extend_and_show(tmp_path):
    write_project(
        tmp_path,
        {
            ".git/HEAD": "",
            "pyproject.toml": '[tool.trtlint]\nignore = ["TRT301"]\nfail-level = "error"\nmax-call-depth = 4\n',
            "sub/pkg/trtlint.toml": 'extend = "../../pyproject.toml"\nfail-level = "warning"\n',
            "sub/pkg/a.py": "x = 1\n",
            "other/b.py": "y = 2\n",
        },
    )
    s = load_settings(tmp_path / "sub" / "pkg")
    assert s.config_file == (tmp_path / "sub/pkg/trtlint.toml").resolve() or s.config_file == tmp_path / "sub/pkg/trtlint.toml"
    assert s.ignore == ["TRT301"] and s.fail_level == "warning" and s.max_call_depth == 4
    r = trtlint("config", str(tmp_path / "sub" / "pkg" / "a.py"), "--show")
    assert r.returncode == 0, r.stderr
    assert f"extends: {(tmp_path / 'pyproject.toml').resolve()}" in r.stdout
    assert f"fail-level = 'warning'    # {tmp_path / 'sub/pkg/trtlint.toml'}" in r.stdout
    assert f"ignore = ['TRT301']    # {(tmp_path / 'pyproject.toml').resolve()}" in r.stdout
    # the closest config wins: other/ has none of its own, so the root one applies
    assert load_settings(tmp_path / "other").fail_level == "error"

    (tmp_path / "sub/pkg/trtlint.toml").write_text('extend = "../nope.toml"\n')
    r = trtlint("config", str(tmp_path / "sub" / "pkg"))
    assert r.returncode == 2 and "'extend' names" in r.stderr and "does not exist" in r.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.trtlint]\nextend = "sub/pkg/trtlint.toml"\n')
    (tmp_path / "sub/pkg/trtlint.toml").write_text('extend = "../../pyproject.toml"\n')
    r = trtlint("config", str(tmp_path / "sub" / "pkg"))
    assert r.returncode == 2 and "cycle" in r.stderr


def test_nested_config_governs_the_findings_below_it(tmp_path):
    from trtlint.checks.examples.contract import creator_cpp, onnxscript_py

    write_project(
        tmp_path,
        {
            ".git/HEAD": "",
            "pyproject.toml": '[tool.trtlint]\nseverity = { TRT101 = "warning" }\n',
            "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
            "a/t.py": onnxscript_py("FooPlugn"),
            # no extend: the closest config wins alone (severity back to the default, error)
            "b/trtlint.toml": 'fail-level = "error"\n',
            "b/t.py": onnxscript_py("FooPlugn"),
            # ignores TRT101 below it; per-file-ignores globs are relative to the nested config
            "c/pyproject.toml": '[tool.trtlint]\nextend = "../pyproject.toml"\n[tool.trtlint.per-file-ignores]\n"gen/**" = ["TRT101"]\n',
            "c/gen/t.py": onnxscript_py("FooPlugn"),
            "c/src/t.py": onnxscript_py("FooPlugn"),
            "d/trtlint.toml": 'ignore = ["plugin-name-mismatch"]\n',
            "d/deep/er/t.py": onnxscript_py("FooPlugn"),
        },
    )
    res = run(load_settings(tmp_path), jobs=1, use_cache=False)
    got = [(d.span.path, d.code, d.severity.value) for d in res.diagnostics]
    assert got == [
        ("a/t.py", "TRT101", "warning"),
        ("b/t.py", "TRT101", "error"),
        ("c/src/t.py", "TRT101", "warning"),  # inherited through extend
    ]
    r = trtlint("config", "--show", str(tmp_path / "c" / "src"))
    assert f"config file: {tmp_path / 'c' / 'pyproject.toml'}" in r.stdout
    assert f"extends: {(tmp_path / 'pyproject.toml').resolve()}" in r.stdout


def test_display_only_fixes_are_never_applied_and_unsafe_needs_the_flag(tmp_path):
    from trtlint.base.diagnostics import Diagnostic, Fix, Severity
    from trtlint.base.fixes import applicable

    (tmp_path / "a.py").write_text("x = 1\n")
    edit = Edit(Span("a.py", 1, 5, 1, 6), "2", expect="1")
    mk = lambda app: Diagnostic("TRT101", "n", Severity.ERROR, "m", Span("a.py", 1), fix=Fix("set 2", (edit,), app))  # noqa: E731
    assert applicable(mk("safe").fix, False) and not applicable(mk("unsafe").fix, False)
    assert applicable(mk("unsafe").fix, True) and not applicable(mk("display-only").fix, True)
    assert plan_fixes([mk("display-only")], tmp_path, {}, unsafe=True).files == []
    plan = plan_fixes([mk("unsafe")], tmp_path, {}, unsafe=True)
    assert [f.after for f in plan.files] == ["x = 2\n"]
    assert (tmp_path / "a.py").read_text() == "x = 1\n"  # planning writes nothing
    write_fixes(plan, tmp_path)
    assert (tmp_path / "a.py").read_text() == "x = 2\n"


def test_unsafe_fixes_alone_writes_nothing(tmp_path):
    from trtlint.checks.examples.contract import creator_cpp, onnxscript_py

    write_project(tmp_path, {".git/HEAD": "", "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"), "t.py": onnxscript_py("FooPlugn")})
    r = trtlint("check", str(tmp_path), "--unsafe-fixes", "--no-cache")
    assert r.returncode == 1 and "fix available (unsafe)" in r.stdout
    assert "FooPlugn" in (tmp_path / "t.py").read_text()
