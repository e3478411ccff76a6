"""Incremental checking (issue 36): the editor's session re-extracts only the edited file and re-runs only the rules
whose fact kinds changed (``Rule.reads``, trtlint.checks.reads.RuleMemo); the rest give their findings of the last
check. The correctness proof: after each edit of a sequence on a fixture project, the session's findings are
identical to a from-scratch run (no cache) over a copy of the project holding the same texts on disk."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from trtlint.checks.reads import FACT_KINDS, RuleMemo, changed_kinds
from trtlint.checks.registry import all_rules
from trtlint.editor.session import Session

from .helpers import check_project, diag_keys as _key, full_run_keys

FIXTURE = Path(__file__).parent / "fixtures" / "edgellm_mini"
FOO = "cpp/plugins/fooPlugin/fooPlugin.cpp"
BAR = "cpp/plugins/barPlugin/barPlugin.cpp"
TRANSLATIONS = "tensorrt_edgellm/onnx/custom_translations.py"
HEADER = "cpp/plugins/fooPlugin/fooPlugin.h"
TESTS_PY = "tests/python-unittests/test_foo_plugin.py"



def _edits(root: Path) -> list[tuple[str, str, str]]:
    """(label, file, its new text): each applied on top of the ones before."""
    foo = (root / FOO).read_text()
    at = foo.index("{\n", foo.index("FooPlugin::enqueue(")) + 2
    malloc = foo[:at] + "    void* scratch = nullptr;\n    cudaMalloc(&scratch, 64);\n" + foo[at:]
    tr = (root / TRANSLATIONS).read_text()
    hdr = (root / HEADER).read_text()
    tpy = (root / TESTS_PY).read_text()
    return [
        ("cudaMalloc typed into enqueue", FOO, malloc),
        ("a comment line above it (every span below moves)", FOO, "// moved\n" + malloc),
        ("undo", FOO, foo),
        ("a plugin name misspelt in a translation", TRANSLATIONS, tr.replace("_trt_edgellm.FooPlugin(", "_trt_edgellm.FooPlugn(", 1)),
        ("restored", TRANSLATIONS, tr),
        ("a suppression comment on the translation line", TRANSLATIONS,
         tr.replace("_trt_edgellm.BarPlugin(x, axis=axis, plugin_version=\"2\")",
                    "_trt_edgellm.BarPlugin(x, axis=axis, plugin_version=\"2\")  # trtlint: ignore[TRT102]", 1)),
        ("a Python test file edited (no plugin fact)", TESTS_PY, tpy + "\n\ndef test_more():\n    assert True\n"),
        ("the plugin header edited (its includers re-extracted)", HEADER, hdr + "\n// edited\n"),
        ("a second plugin unit: cudaFree in enqueue", BAR,
         (root / BAR).read_text().replace("noexcept override\n    {", "noexcept override\n    {\n        cudaFree(nullptr);", 1)),
    ]


@pytest.mark.parametrize("select", [None, ["ALL"]], ids=["default", "all"])
def test_incremental_findings_equal_a_full_run(tmp_path, select):
    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    overrides = {"select": select} if select else None
    s = Session(proj, use_cache=False, jobs=1, overrides=overrides)
    try:
        s.load()
        s.check()
        reused_any = set()
        texts: dict[str, str] = {}
        for i, (label, rel, text) in enumerate(_edits(proj)):
            texts[rel] = text
            s.set_buffer(rel, text)
            got = _key(s.check())
            reused_any.update(s.state.rule_memo.reused)
            want = full_run_keys(proj, texts, tmp_path / f"scratch{i}", select)
            assert got == want, f"after '{label}': the incremental check differs from a full run"
        # the reuse was exercised, not bypassed: some rules kept their findings across the edits
        assert reused_any, "no rule's findings were reused"
    finally:
        s.close()


def test_a_rule_is_not_rerun_when_its_kinds_did_not_change(tmp_path):
    """A Python-only edit leaves the C++ hot-path rules' findings (they read no Python fact) to the last check,
    and a C++ edit runs them again."""
    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    s = Session(proj, use_cache=False, jobs=1)
    try:
        s.load()
        s.check()
        tr = (proj / TRANSLATIONS).read_text()
        s.set_buffer(TRANSLATIONS, tr.replace("_trt_edgellm.FooPlugin(", "_trt_edgellm.FooPlugn(", 1))
        s.check()
        memo = s.state.rule_memo
        assert "TRT301" in memo.reused and "TRT301" not in memo.ran
        assert "TRT101" in memo.ran  # reads the emissions
        foo = (proj / FOO).read_text()
        s.set_buffer(FOO, "// moved\n" + foo)
        s.check()
        assert "TRT301" in memo.ran
    finally:
        s.close()


def test_changed_kinds():
    from trtlint.base.facts import FileFacts

    a = FileFacts(path="a.py", kind="python", digest="1")
    assert changed_kinds(a, a) == set()
    assert changed_kinds(a, FileFacts(path="a.py", kind="python", digest="2")) == {"digest"}
    assert changed_kinds(None, a) == {"files", "digest"}
    m = RuleMemo()
    m.inputs_changed(1)
    assert m.changed is None  # nothing known yet: nothing reused
    m.done()
    m.note({"emissions"})
    assert m.changed == {"emissions"}


def test_declared_kinds_are_known():
    for rule in all_rules():
        if rule.reads is not None:
            assert rule.reads <= FACT_KINDS, (rule.code, sorted(rule.reads - FACT_KINDS))


def _cli_run(root: Path, select=None):
    """A ``trtlint check`` of the whole project with its cache (what the command line runs)."""
    from trtlint.config.settings import Settings
    from trtlint.pipeline.run import run

    s = Settings(root=root.resolve())
    if select is not None:
        s.select = list(select)
    return run(s, jobs=1, use_cache=True, memo=True)


@pytest.mark.parametrize("select", [None, ["ALL"]], ids=["default", "all"])
def test_cli_runs_reuse_the_last_runs_rule_findings_and_equal_a_full_run(tmp_path, select):
    """``trtlint check`` after an edit, with the cache of the run before (pipeline.rulecache): the rules whose fact
    kinds did not change give the last run's findings, and the findings equal a from-scratch run's after every edit
    of the sequence (a header edit and an undo among them: facts taken back from the cache to compare)."""
    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    _cli_run(proj, select)
    reused_any, ran_any = set(), set()
    texts: dict[str, str] = {}
    for i, (label, rel, text) in enumerate(_edits(proj)):
        texts[rel] = text
        (proj / rel).write_text(text, encoding="utf-8")
        res = _cli_run(proj, select)
        if res.state is not None:  # (None: the whole-run memo answered, e.g. after the undo)
            reused_any.update(res.state.rule_memo.reused)
            ran_any.update(res.state.rule_memo.ran)
        scratch = tmp_path / f"scratch{i}"
        shutil.copytree(proj, scratch, ignore=shutil.ignore_patterns(".trtlint_cache"))
        full = check_project(scratch, select=select or None)
        want = [(c, p, ln, col, sym, msg.replace(str(scratch), str(proj)), notes)
                for c, p, ln, col, sym, msg, notes in _key(full.diagnostics)]
        assert _key(res.diagnostics) == want, f"after '{label}': the run with the rule memo differs from a full run"
    assert reused_any and ran_any, "the rule memo was not used across the runs"


def test_cli_rule_memo_knows_what_a_python_edit_changed(tmp_path):
    """A Python-only edit between two runs leaves the C++ hot-path rule to the last run's findings; a C++ edit runs
    it again; a run with other settings (another selection) reuses nothing."""
    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    _cli_run(proj)
    tr = (proj / TRANSLATIONS).read_text()
    (proj / TRANSLATIONS).write_text(tr.replace("_trt_edgellm.FooPlugin(", "_trt_edgellm.FooPlugn(", 1))
    memo = _cli_run(proj).state.rule_memo
    assert "TRT301" in memo.reused and "TRT301" not in memo.ran
    assert "TRT101" in memo.ran  # reads the emissions
    (proj / FOO).write_text("// moved\n" + (proj / FOO).read_text())
    memo = _cli_run(proj).state.rule_memo
    assert "TRT301" in memo.ran
    (proj / FOO).write_text((proj / FOO).read_text() + "\n// again\n")
    memo = _cli_run(proj, ["ALL"]).state.rule_memo
    assert not memo.reused


_MODULES_PROBE = r"""
import json, runpy, sys
sys.argv = ["trtlint"] + sys.argv[1:]
try:
    runpy.run_module("trtlint", run_name="__main__")
except SystemExit:
    pass
sys.stdout.flush()
print("\nMODULES " + json.dumps(sorted(m for m in sys.modules if m.startswith("trtlint.checks."))))
"""


def _cli_subprocess(root: Path, *extra: str) -> tuple[list[tuple], list[str]]:
    """A ``trtlint check`` in a fresh process: its findings and the modules of trtlint/checks/ it imported."""
    import json
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[1]
    p = subprocess.run([sys.executable, "-c", _MODULES_PROBE, "check", str(root), "--no-progress", "--format", "json",
                        *extra], env=dict(os.environ, PYTHONPATH=str(repo)), cwd=root, capture_output=True, text=True)
    out, _, mods = p.stdout.rpartition("\nMODULES ")
    assert mods, p.stderr
    found = [(d["code"], d["location"]["path"], d["location"]["line"], d["message"])
             for d in json.loads(out)["diagnostics"]]
    return found, json.loads(mods)


_LATE_PROBE = r"""
import json, runpy, sys
sys.argv = ["trtlint"] + sys.argv[1:]
import trtlint.pipeline.extraction as X, trtlint.pipeline.run as R
marks = {}
collect, run = X.Extraction.collect, R.run
def spy_collect(self, handle):  # the first facts a worker sends back
    got = collect(self, handle)
    if got and "facts" not in marks and self.pool is not None:
        marks["facts"] = set(sys.modules)
    return got
def spy_run(*a, **k):
    try:
        return run(*a, **k)
    finally:
        marks["run"] = set(sys.modules)
X.Extraction.collect, R.run = spy_collect, spy_run
try:
    runpy.run_module("trtlint", run_name="__main__")
except SystemExit:
    pass
sys.stdout.flush()
print("\nLATE " + json.dumps(sorted(marks["run"] - marks["facts"]) if "facts" in marks else None))
"""


def test_a_one_file_run_imports_nothing_after_its_facts_come_back(tmp_path):
    """A cold run, and one after a comment appended to a plugin unit (a worker parses it; the rule memo holds the
    findings of every rule whose fact kinds did not change): what the check imports (the rules that run again whatever changed, the modules every check and its summary import
    on first use: ``pipeline.check.import_ahead``) is imported while the worker parses, not after its facts are
    back, where the run would wait for it (~6-10 ms on Edge-LLM 0.5.0)."""
    import json
    import os
    import subprocess
    import sys

    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    repo = Path(__file__).resolve().parents[1]

    def late() -> list:
        p = subprocess.run([sys.executable, "-c", _LATE_PROBE, "check", str(proj), "--no-progress", "--format", "json"],
                           env=dict(os.environ, PYTHONPATH=str(repo)), cwd=proj, capture_output=True, text=True)
        _out, _, got = p.stdout.rpartition("\nLATE ")
        assert got, p.stderr
        return json.loads(got)

    assert late() == []  # the first run (no cache: every rule runs, imported while the workers parse)
    (proj / BAR).write_text((proj / BAR).read_text() + "\n// a comment\n", encoding="utf-8")
    assert late() == []


def test_cli_run_imports_only_the_rules_it_runs_again(tmp_path):
    """With the rule memo of the last run, ``trtlint check`` knows the selected rules by the code table
    (checks/codes.py) and imports only the modules of the rules it runs again (RuleStub.load): a comment appended to
    a plugin unit changes no fact kind, so no hot-path, contract or Python rule module is imported; a ``cudaMalloc``
    typed into ``enqueue`` imports the hot-path rules. The findings equal a run without the cache each time, with a
    per-file-ignores entry and an inline suppression (the rules that judge the filter, TRT002, then run every rule)."""
    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    (proj / "trtlint.toml").write_text('[per-file-ignores]\n"unittests/**" = ["TRT404"]\n', encoding="utf-8")
    tr = (proj / TRANSLATIONS).read_text()
    (proj / TRANSLATIONS).write_text(tr.replace(
        "_trt_edgellm.BarPlugin(x, axis=axis, plugin_version=\"2\")",
        "_trt_edgellm.BarPlugin(x, axis=axis, plugin_version=\"2\")  # trtlint: ignore[TRT102]", 1), encoding="utf-8")
    first, every = _cli_subprocess(proj)
    rule_modules = {m for m in every if m.count(".") == 3 and not m.startswith("trtlint.checks.examples.")}
    assert any(m.startswith("trtlint.checks.hotpath.") for m in rule_modules)
    bar = (proj / BAR).read_text()
    for label, text, hot in [("a comment appended", bar + "\n// a comment\n", False),
                             ("cudaMalloc typed into enqueue", bar.replace(
                                 "        checkBarAxis(mAxis);\n", "        checkBarAxis(mAxis);\n        void* p = nullptr;\n"
                                 "        cudaMalloc(&p, 16);\n", 1), True)]:
        (proj / BAR).write_text(text, encoding="utf-8")
        got, mods = _cli_subprocess(proj)
        full, _ = _cli_subprocess(proj, "--no-cache")
        assert got == full, f"after '{label}': the run with the rule memo differs from a run without the cache"
        imported = {m for m in mods if m in rule_modules}
        if hot:
            assert any(c == "TRT301" and p == BAR for c, p, _, _ in got)
            assert any(m.startswith("trtlint.checks.hotpath.") for m in imported)
        else:
            assert not any(m.startswith(("trtlint.checks.hotpath.", "trtlint.checks.contract.",
                                         "trtlint.checks.python.")) for m in imported), sorted(imported)
            assert len(imported) <= 3, sorted(imported)  # TRT002 (judges the filter), TRT401 (reads undeclared)
