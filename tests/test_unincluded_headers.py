"""Headers no C++/CUDA unit includes, with the build known (pipeline/unincluded.py): their findings are set aside and
the summary names them; a header some file reaches, however it includes it, is judged as before."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from trtlint.checks.core.analysis_incomplete import _DEAD_TREE
from trtlint.pipeline.unincluded import set_aside, unincluded_headers
from trtlint.report.context import Analysis

from .helpers import check_project, write_project

REPO = Path(__file__).resolve().parents[1]
DEAD = "plugins/sigmoidPlugin.h"


def _trt004(tmp_path: Path, files: dict, config=None) -> list:
    write_project(tmp_path, files)
    res = check_project(tmp_path, select=["TRT004"], config=config)
    return [d.span.path for d in res.diagnostics if d.code == "TRT004"], res


def test_dead_header_set_aside_and_named_in_the_summary(tmp_path):
    got, res = _trt004(tmp_path, _DEAD_TREE)
    assert got == []
    an = Analysis.from_dict(res.analysis)
    assert an.unincluded == ((DEAD, 1),)
    assert ("1 header no unit includes was not judged (1 finding set aside: plugins/sigmoidPlugin.h; set "
            "judge-unincluded-headers = true to judge it)") in an.line()
    # the JSON report names it too (what bench/corpus.py counts as reported, not a silent blind spot)
    out = subprocess.run([sys.executable, "-m", "trtlint", "check", str(tmp_path), "--format", "json", "--no-cache",
                          "--select", "TRT004"], capture_output=True, text=True, cwd=tmp_path,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    rep = json.loads(out.stdout)
    assert rep["summary"]["analysis"]["unincluded_headers_not_judged"] == [{"path": DEAD, "findings": 1}]
    assert rep["diagnostics"] == []


def test_judge_setting_and_no_build_judge_it(tmp_path):
    got, res = _trt004(tmp_path / "a", _DEAD_TREE, config={"judge-unincluded-headers": True})
    assert got == [DEAD] and not Analysis.from_dict(res.analysis).unincluded
    got, _ = _trt004(tmp_path / "b", {k: v for k, v in _DEAD_TREE.items() if k != "CMakeLists.txt"})
    assert got == [DEAD]


def test_transitive_include_dir_and_unbuilt_includers_count(tmp_path):
    # through another header that a unit includes
    files = dict(_DEAD_TREE)
    files["plugins/leakyPlugin.h"] += '#include "sigmoidPlugin.h"\n'
    assert _trt004(tmp_path / "a", files)[0] == [DEAD]
    # by a path rooted at an include directory, not beside the includer
    files = {("include/acme/sigmoidPlugin.h" if k == DEAD else k): v for k, v in _DEAD_TREE.items()}
    files["include/acme/other.h"] = "#pragma once\n"
    files["plugins/leakyPlugin.cpp"] = '#include <acme/other.h>\n#include "leakyPlugin.h"\n'
    files["tests/test_sigmoid.cpp"] = "#include <acme/sigmoidPlugin.h>\nint main() { return 0; }\n"
    assert _trt004(tmp_path / "b", files)[0] == ["include/acme/sigmoidPlugin.h"]  # a test no build file names
    files["tests/test_sigmoid.cpp"] = "int main() { return 0; }\n"
    assert _trt004(tmp_path / "c", files)[0] == []


class _Build:
    units = {"src/a.cpp": ()}


def test_unincluded_headers_rules():
    kinds = {"src/a.cpp": "cpp", "src/a.h": "header", "src/dead.h": "header", "lone/alone.h": "header",
             "src/b.cu": "cuda"}
    inc = {"src/a.cpp": ("a.h",), "src/b.cu": ("../src/a.h",)}
    assert unincluded_headers(kinds, inc, _Build()) == ("src/dead.h",)
    # (lone/alone.h: no header of its directory is reached, so it is not called dead: a family of headers some
    # file outside discovery includes looks the same)
    assert unincluded_headers(kinds, inc, None) == ()  # no build known
    assert unincluded_headers(kinds, dict(inc, **{"src/b.cu": ("#SOME_HEADER",)}), _Build()) == ()  # computed


def test_unincluded_headers_in_two_steps_equal_one_walk():
    """A run walks the #include lines while its workers parse (``Reach``) and adds the units' facts after: a header
    only the facts reach, and what it includes, count; a computed include in a header only the facts reach still
    says nothing is known."""
    from trtlint.base.facts import FileFacts
    from trtlint.pipeline.unincluded import Reach

    kinds = {"src/a.cpp": "cpp", "src/a.h": "header", "src/gen.h": "header", "src/more.h": "header",
             "src/dead.h": "header"}
    inc = {"src/a.cpp": ("a.h",), "src/gen.h": ("more.h",)}
    facts = [FileFacts(path="src/a.cpp", kind="cpp", digest="1", includes=("src/gen.h",))]
    assert unincluded_headers(kinds, inc, _Build()) == ("src/dead.h", "src/gen.h", "src/more.h")
    r = Reach(kinds, inc, _Build())
    assert r.unincluded() == ("src/dead.h", "src/gen.h", "src/more.h")
    r.add_facts(facts)
    assert r.unincluded() == ("src/dead.h",) == unincluded_headers(kinds, inc, _Build(), facts)
    computed = dict(inc, **{"src/gen.h": ("#GENERATED",)})
    r = Reach(kinds, computed, _Build())
    assert r.unincluded() == ("src/dead.h", "src/gen.h", "src/more.h")
    r.add_facts(facts)
    assert r.unincluded() == () == unincluded_headers(kinds, computed, _Build(), facts)


def test_set_aside_keeps_findings_that_name_a_compiled_file():
    from trtlint.base.diagnostics import Diagnostic, Related, Severity
    from trtlint.base.facts import Span

    def d(path, related=()):
        return Diagnostic(code="TRT101", name="x", severity=Severity.ERROR, message="m", span=Span(path, 1),
                          related=tuple(Related(span=Span(r, 1), message="r") for r in related))

    kept, aside = set_aside([d("h.h"), d("h.h", ["h.h"]), d("h.h", ["a.cpp"]), d("a.cpp")], ["h.h"])
    assert [x.span.path for x in kept] == ["h.h", "a.cpp"] and aside == {"h.h": 2}


def test_editor_session_follows_an_include_added_in_a_buffer(tmp_path):
    """The editor's session finds the headers no unit includes again when a buffer's #include lines change: the
    same findings as a full run over the edited files."""
    from trtlint.editor.session import Session

    from .helpers import full_run_keys

    write_project(tmp_path / "proj", _DEAD_TREE)
    proj = tmp_path / "proj"
    s = Session(proj, use_cache=False, jobs=1, overrides={"select": ["TRT004"]})
    try:
        s.load()
        assert [d.span.path for d in s.check()] == []
        text = '#include "leakyPlugin.h"\n#include "sigmoidPlugin.h"\n' + _DEAD_TREE["plugins/leakyPlugin.cpp"].split("\n", 1)[1]
        s.set_buffer("plugins/leakyPlugin.cpp", text)
        got = [d.span.path for d in s.check()]
        assert got == [DEAD]
        assert [k[1] for k in full_run_keys(proj, {"plugins/leakyPlugin.cpp": text}, tmp_path / "scratch",
                                             ["TRT004"])] == got
    finally:
        s.close()
