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

from .helpers import check_project

FIXTURE = Path(__file__).parent / "fixtures" / "edgellm_mini"
FOO = "cpp/plugins/fooPlugin/fooPlugin.cpp"
BAR = "cpp/plugins/barPlugin/barPlugin.cpp"
TRANSLATIONS = "tensorrt_edgellm/onnx/custom_translations.py"
HEADER = "cpp/plugins/fooPlugin/fooPlugin.h"
TESTS_PY = "tests/python-unittests/test_foo_plugin.py"


def _key(diags) -> list[tuple]:
    return [(d.code, d.span.path, d.span.line, d.span.col, d.symbol, d.message, tuple(d.notes)) for d in diags]


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
            scratch = tmp_path / f"scratch{i}"
            shutil.copytree(proj, scratch)
            for r, t in texts.items():
                (scratch / r).write_text(t, encoding="utf-8")
            full = check_project(scratch, select=select or None)
            want = [(c, p, ln, col, sym, msg.replace(str(scratch), str(proj)), notes)
                    for c, p, ln, col, sym, msg, notes in _key(full.diagnostics)]
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
