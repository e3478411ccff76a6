"""Code only a build option the project marks experimental or deprecated builds (pipeline/buildmodel/gates.py,
pipeline/unincluded.optional_builds): which branches are gated, which units only gated branches name, and that the
run sets their findings aside and names the option in its summary and JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from trtlint.checks.core.analysis_incomplete import _FLAG_TREE, _OPTIONAL_TREE
from trtlint.frontends.setuppy import read_setup
from trtlint.pipeline.buildmodel import build_model
from trtlint.pipeline.buildmodel.gates import condition, marked, option_declared, truth
from trtlint.pipeline.unincluded import optional_builds
from trtlint.report.context import Analysis

from .helpers import check_project, write_project

REPO = Path(__file__).resolve().parents[1]
HEAD = "cmake_minimum_required(VERSION 3.18)\nproject(demo)\n"


def test_the_pieces():
    assert [truth(v) for v in ("ON", "yes", "1", "OFF", "NO", "0", "", "X-NOTFOUND", "maybe")] == [
        True, True, True, False, False, False, False, False, None]
    assert option_declared("option", (("BUILD_X", False), ("doc", True))) == ("BUILD_X", "OFF", "doc")
    assert option_declared("set", (("X", False), ("NO", True), ("CACHE", False), ("BOOL", False), ("d", True))) == (
        "X", "NO", "d")
    assert option_declared("set", (("X", False), ("NO", False))) is None  # a plain variable
    assert option_declared("set", (("X", False), ("a", False), ("CACHE", False), ("STRING", False))) is None
    assert condition((("BUILD_X", False),)) == ("BUILD_X", False)
    assert condition((("${BUILD_X}", False),)) == ("BUILD_X", False)
    assert condition((("NOT", False), ("BUILD_X", False))) == ("BUILD_X", True)
    assert condition((("BUILD_X", False), ("AND", False), ("UNIX", False))) is None
    assert [marked(s) for s in ("BUILD_EXPERIMENTAL", "the Deprecated plugins", "legacy code", "Build TensorRT",
                                "experimentally")] == ["experimental", "deprecated", "legacy", "", ""]


def _optional(tmp_path: Path, cmake: str, files=("a/x.cu", "b/y.cu"), cc=None):
    write_project(tmp_path, {"CMakeLists.txt": HEAD + cmake, **{f: "int f();\n" for f in files}})
    if cc is not None:
        (tmp_path / "compile_commands.json").write_text(json.dumps(cc))
    m = build_model(tmp_path, compile_commands=(tmp_path / "compile_commands.json") if cc is not None else None)
    return {(o, needs): units for o, needs, _w, _why, units in m.optional}


def test_which_branches_are_gated(tmp_path):
    opt = 'option(WITH_EXPERIMENTAL "plugins" OFF)\n'
    lib = "add_library(demo SHARED ${S})\n"
    # the then-branch of the option off by default; the else of `if(NOT ...)`; a cache BOOL set NO
    assert _optional(tmp_path / "a", opt + "file(GLOB S a/*.cu)\nif(WITH_EXPERIMENTAL)\n  list(APPEND S b/y.cu)\nendif()\n"
                     + lib) == {("WITH_EXPERIMENTAL", "ON"): ("b/y.cu",)}
    assert _optional(tmp_path / "b", opt + "set(S a/x.cu)\nif(NOT WITH_EXPERIMENTAL)\nelse()\n  add_library(e b/y.cu)\n"
                     "endif()\n" + lib) == {("WITH_EXPERIMENTAL", "ON"): ("b/y.cu",)}
    write_project(tmp_path / "d", {"CMakeLists.txt": HEAD + 'set(OLD_API NO CACHE BOOL "the deprecated API")\n'
                                   "if(${OLD_API})\n  add_subdirectory(b)\nendif()\n",
                                   "b/CMakeLists.txt": "add_library(old y.cu)\n", "b/y.cu": "int f();\n"})
    assert [(o, u) for o, _n, _w, _y, u in build_model(tmp_path / "d").optional] == [("OLD_API", ("b/y.cu",))]
    # not gated: a condition joining the option with another, an elseif arm, the option set again as a plain
    # variable, an option on by default, a path also named outside every gated branch, an unmarked option
    body = "  list(APPEND S b/y.cu)\n"
    assert _optional(tmp_path / "e", opt + f"set(S a/x.cu)\nif(WITH_EXPERIMENTAL AND UNIX)\n{body}endif()\n" + lib) == {}
    assert _optional(tmp_path / "f", opt + f"set(S a/x.cu)\nif(FOO)\nelseif(WITH_EXPERIMENTAL)\n{body}else()\n{body}"
                     "endif()\n" + lib) == {}
    assert _optional(tmp_path / "g", opt + f"set(WITH_EXPERIMENTAL ON)\nset(S a/x.cu)\nif(WITH_EXPERIMENTAL)\n{body}"
                     "endif()\n" + lib) == {}
    assert _optional(tmp_path / "h", opt.replace("OFF", "ON") + f"set(S a/x.cu)\nif(WITH_EXPERIMENTAL)\n{body}endif()\n"
                     + lib) == {}
    assert _optional(tmp_path / "i", opt + f"set(S a/x.cu)\nif(WITH_EXPERIMENTAL)\n{body}endif()\n"
                     "add_library(tool b/y.cu)\n" + lib) == {}
    assert _optional(tmp_path / "j", opt.replace("plugins", "extra plugins").replace("WITH_EXPERIMENTAL", "WITH_X")
                     + f"set(S a/x.cu)\nif(WITH_X)\n{body}endif()\n" + lib) == {}
    # a unit the configured build compiles (compile_commands.json) is no optional code
    cc = [{"directory": str(tmp_path / "k"), "file": str(tmp_path / "k" / "b/y.cu"), "command": "nvcc -c b/y.cu"}]
    assert _optional(tmp_path / "k", opt + f"set(S a/x.cu)\nif(WITH_EXPERIMENTAL)\n{body}endif()\n" + lib, cc=cc) == {}


def test_setup_py_flags():
    ext, = read_setup(_FLAG_TREE["setup.py"])
    assert (ext.name, ext.flag, ext.flag_line) == ("old", "--old-plugins", 6)
    # the extension's name also used outside the flag's block: every build adds it
    ext, = read_setup(_FLAG_TREE["setup.py"] + "everything = [old]\n")
    assert ext.flag == ""
    ext, = read_setup("import sys\nfrom setuptools import Extension\nexts = []\nif '--cuda' in sys.argv:\n"
                      "    exts.append(Extension('e', ['e.cu']))\n")
    assert (ext.flag, ext.flag_line) == ("--cuda", 4)


def test_files_only_the_option_builds(tmp_path):
    """A unit's included ``.cpp`` that no build compiles on its own goes with it; a header a live unit includes
    does not."""
    files = dict(_FLAG_TREE)
    files["old/sigmoid.cu"] = '#include "impl.cpp"\n#include "../common/shared.h"\n'
    files["old/impl.cpp"] = "int impl();\n"
    files["common/shared.h"] = "#pragma once\n"
    files["live/live.cu"] = '#include "../common/shared.h"\n'
    files["CMakeLists.txt"] = HEAD + "add_library(live live/live.cu)\n"
    write_project(tmp_path, files)
    build = build_model(tmp_path)
    kinds = {k: ("header" if k.endswith(".h") else "cpp" if k.endswith(".cpp") else "cuda" if k.endswith(".cu")
                 else "other") for k in files}
    includes = {"old/sigmoid.cu": ("impl.cpp", "../common/shared.h"), "live/live.cu": ("../common/shared.h",)}
    got = optional_builds(kinds, includes, build)
    assert [(o, w, fs) for o, _n, w, _y, fs in got] == [("setup.py --old-plugins", "setup.py:6",
                                                        ("old/impl.cpp", "old/sigmoid.cu"))]
    assert got[0][3].startswith("README.md:3 says deprecated: 'The deprecated plugins are built by")


def test_set_aside_named_in_the_summary_and_the_json(tmp_path):
    write_project(tmp_path, _OPTIONAL_TREE)
    res = check_project(tmp_path, select=["TRT004"])
    assert [d for d in res.diagnostics if d.code == "TRT004"] == []
    an = Analysis.from_dict(res.analysis)
    assert an.optional == (("BUILD_EXTRAS", "ON", "CMakeLists.txt:5",
                            "CMakeLists.txt:3 says experimental: 'Build the experimental plugins'", 1,
                            ("plugins/extras/sigmoid.cu",)),)
    assert ("code only a build option the project marks experimental or deprecated builds was not judged "
            "(BUILD_EXTRAS=ON at CMakeLists.txt:5, CMakeLists.txt:3 says experimental: 'Build the experimental "
            "plugins': 1 file, plugins/extras/sigmoid.cu; 1 finding set aside; set judge-optional-builds = true to "
            "judge it)") in an.line()
    out = subprocess.run([sys.executable, "-m", "trtlint", "check", str(tmp_path), "--format", "json", "--no-cache",
                          "--select", "TRT004"], capture_output=True, text=True, cwd=tmp_path,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    rep = json.loads(out.stdout)
    assert rep["summary"]["analysis"]["optional_builds_not_judged"] == [
        {"option": "BUILD_EXTRAS", "needs": "ON", "where": "CMakeLists.txt:5",
         "why": "CMakeLists.txt:3 says experimental: 'Build the experimental plugins'", "findings": 1,
         "files": ["plugins/extras/sigmoid.cu"]}]
    assert rep["diagnostics"] == []
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from corpus import not_analysed
    finally:
        sys.path.remove(str(REPO / "bench"))
    assert "plugins/extras/sigmoid.cu" in not_analysed(rep, "")[0]


def test_the_editor_sets_them_aside_too(tmp_path):
    """The session's findings equal a full run's, before and after an edit that makes the build compile the
    optional folder in every configuration."""
    from trtlint.editor.session import Session

    from .helpers import diag_keys, full_run_keys

    proj = tmp_path / "proj"
    write_project(proj, _OPTIONAL_TREE)
    s = Session(proj, use_cache=False, jobs=1, isolate=True)
    try:
        s.load()
        got = diag_keys(s.check())
        assert [k for k in got if k[0] == "TRT004"] == []
        assert got == full_run_keys(proj, {}, tmp_path / "scratch0")
    finally:
        s.close()
