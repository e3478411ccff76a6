"""Programs whose Makefile make cannot run (an ``include`` of a file the tree does not have): their findings are set
aside and the summary names the Makefile (pipeline/buildmodel/makeprog.missing_include,
pipeline/unincluded.unrunnable_programs); an include make would get past is not one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from trtlint.checks.core.analysis_incomplete import _UNRUNNABLE_TREE
from trtlint.pipeline.buildmodel import build_model
from trtlint.pipeline.buildmodel.makeprog import missing_include
from trtlint.pipeline.unincluded import unrunnable_programs
from trtlint.report.context import Analysis

from .helpers import check_project, write_project

REPO = Path(__file__).resolve().parents[1]
OLD = "samples/old/Makefile"


def _missing(tmp_path: Path, text: str, extra=()) -> object:
    present = {OLD, *extra}
    for rel in present:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text if rel == OLD else "")
    return missing_include(str(tmp_path), OLD, text, present)


def test_which_includes_make_cannot_get_past(tmp_path):
    assert _missing(tmp_path / "a", "all:\n\ttrue\ninclude ../../include/Makefile.inc\n") == (3, "../../include/Makefile.inc")
    # -include / sinclude: make goes on without the file
    assert _missing(tmp_path / "b", "-include ../../include/Makefile.inc\n") is None
    assert _missing(tmp_path / "c", "sinclude ../../include/Makefile.inc\n") is None
    # a name make computes, a file beside the Makefile (a configure step may write it), a rule that makes it
    assert _missing(tmp_path / "d", "include $(TOP)/include/Makefile.inc\n") is None
    assert _missing(tmp_path / "e", "include config.mk\n") is None
    assert _missing(tmp_path / "f", "include ../../include/Makefile.inc\n../../include/Makefile.inc:\n\ttouch $@\n") is None
    # the folder is in the tree (the file may be generated there), the file is there, or the path leaves the tree
    assert _missing(tmp_path / "g", "include ../../include/Makefile.inc\n", extra=("include/version.h",)) is None
    assert _missing(tmp_path / "h", "include ../../include/Makefile.inc\n", extra=("include/Makefile.inc",)) is None
    assert _missing(tmp_path / "i", "include ../../../common/Makefile.inc\n") is None


def test_headers_only_the_unrunnable_program_includes_go_with_it(tmp_path):
    files = dict(_UNRUNNABLE_TREE)
    files["samples/old/sigmoid.cu"] = '#include "sigmoid.h"\n#include "../common/shared.h"\n'
    files["samples/old/sigmoid.h"] = "#pragma once\n"
    files["samples/common/shared.h"] = "#pragma once\n"
    files["samples/live/leaky.cu"] = '#include "../common/shared.h"\n' + files["samples/live/leaky.cu"]
    write_project(tmp_path, files)
    build = build_model(tmp_path)
    assert [(mk, ln, inc) for mk, ln, inc, _u in build.unrunnable] == [(OLD, 1, "../../include/Makefile.inc")]
    kinds = {k: ("header" if k.endswith(".h") else "cuda" if k.endswith(".cu") else "other") for k in files}
    includes = {"samples/old/sigmoid.cu": ("sigmoid.h", "../common/shared.h"),
                "samples/live/leaky.cu": ("../common/shared.h",)}
    got = unrunnable_programs(kinds, includes, build)
    assert got == ((OLD, 1, "../../include/Makefile.inc", ("samples/old/sigmoid.cu", "samples/old/sigmoid.h")),)
    # a computed include anywhere: only the units go
    includes["samples/live/leaky.cu"] += ("#MACRO",)
    assert unrunnable_programs(kinds, includes, build)[0][3] == ("samples/old/sigmoid.cu",)


def test_set_aside_named_in_the_summary_and_the_json(tmp_path):
    write_project(tmp_path, _UNRUNNABLE_TREE)
    res = check_project(tmp_path, select=["TRT004"])
    assert [d for d in res.diagnostics if d.code == "TRT004"] == []
    an = Analysis.from_dict(res.analysis)
    assert an.unrunnable == ((OLD, 1, "../../include/Makefile.inc", 1, ("samples/old/sigmoid.cu",)),)
    assert ("1 program whose Makefile cannot run was not judged (it includes a file the tree does not have: "
            "samples/old/Makefile:1 `include ../../include/Makefile.inc`; 1 finding set aside; set "
            "judge-unrunnable-builds = true to judge it)") in an.line()
    out = subprocess.run([sys.executable, "-m", "trtlint", "check", str(tmp_path), "--format", "json", "--no-cache",
                          "--select", "TRT004"], capture_output=True, text=True, cwd=tmp_path,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    rep = json.loads(out.stdout)
    assert rep["summary"]["analysis"]["unrunnable_builds_not_judged"] == [
        {"makefile": OLD, "line": 1, "include": "../../include/Makefile.inc", "findings": 1,
         "files": ["samples/old/sigmoid.cu"]}]
    assert rep["diagnostics"] == []
    # bench/corpus.py counts those files as named by the run (not a silent blind spot)
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from corpus import not_analysed
    finally:
        sys.path.remove(str(REPO / "bench"))
    assert "samples/old/sigmoid.cu" in not_analysed(rep, "")[0]


def test_the_editor_finds_them_again_when_includes_change(tmp_path):
    """The session's findings equal a full run's after edits that move a header in and out of what only the
    unrunnable program includes (pipeline.unincluded.unrunnable_programs in editor/session.py)."""
    from trtlint.editor.session import Session

    from .helpers import diag_keys, full_run_keys

    proj = tmp_path / "proj"
    files = dict(_UNRUNNABLE_TREE)
    files["samples/old/sigmoid.cu"] = "int sigmoidForward(int n)\n{\n    return n;\n}\n"
    files["samples/common/old.h"] = _UNRUNNABLE_TREE["samples/old/sigmoid.cu"]  # the TensorRT 5-7 plugin
    write_project(proj, files)
    s = Session(proj, use_cache=False, jobs=1, isolate=True)
    try:
        s.load()
        s.check()
        texts: dict = {}
        edits = [("the old unit includes the header: only it does", "samples/old/sigmoid.cu",
                  '#include "../common/old.h"\n' + files["samples/old/sigmoid.cu"]),
                 ("the live unit includes it too", "samples/live/leaky.cu",
                  '#include "../common/old.h"\n' + files["samples/live/leaky.cu"])]
        seen = []
        for i, (label, rel, text) in enumerate(edits):
            texts[rel] = text
            s.set_buffer(rel, text)
            got = diag_keys(s.check())
            assert got == full_run_keys(proj, texts, tmp_path / f"scratch{i}"), label
            seen.append([k[1] for k in got if k[0] == "TRT004"])
        assert seen == [[], ["samples/common/old.h"]]
    finally:
        s.close()
