"""The TensorRT release judged against when `tensorrt-version` is not set: inferred from the tree (issue 24 item 3).

Each project of tests/fixtures/trt_version holds the same plugin (IPluginV2Ext, deprecated in 8.5, overriding
canBroadcastInputAcrossBatch, removed in 11.0) and the same builder script (max_workspace_size twice and
build_engine: deprecated in 8.4 / 8.0, removed in 10.0); only what says the version differs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from trtlint.config.settings import load_settings
from trtlint.pipeline.run import run
from trtlint.report.context import Analysis, ReportContext
from trtlint.report.json import build_json
from trtlint.report.sarif import build_sarif
from trtlint.report.text import render_text

FIXTURES = Path(__file__).parent / "fixtures" / "trt_version"


def _run(tmp_path: Path, name: str):
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)
    settings = load_settings(root)
    settings.select = ["TRT207", "TRT610"]
    res = run(settings, jobs=1, use_cache=False)
    got = sorted((d.code, d.span.path, d.span.line, d.severity.value, d.message) for d in res.diagnostics)
    return res, got


def _ctx(res) -> ReportContext:
    return ReportContext(root=res.index.root, analysis=Analysis.from_dict(res.analysis), show_source=False)


def test_find_package_version_is_the_target(tmp_path):
    res, got = _run(tmp_path, "find_package")
    why = "targeting 8.6, inferred from CMakeLists.txt:3"
    assert got == [
        ("TRT207", "plugins/foo.cpp", 5, "warning",
         f"FooPlugin implements IPluginV2Ext, deprecated since TensorRT 8.5 ({why}); use IPluginV2DynamicExt or "
         "IPluginV2IOExt, as the headers of releases before 10.0 advise (IPluginV3 arrives in TensorRT 10.0)"),
        # canBroadcastInputAcrossBatch (removed in 11.0) and the Python APIs (removed in 10.0) are still there in 8.6
        ("TRT610", "build.py", 3, "warning",
         "max_workspace_size is deprecated since TensorRT 8.4, removed in 10.0 (the project targets 8.6, inferred from "
         "CMakeLists.txt:3) (and 1 more use in this file); use config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, size)"),
        ("TRT610", "build.py", 4, "warning",
         "build_engine is deprecated since TensorRT 8.0, removed in 10.0 (the project targets 8.6, inferred from "
         "CMakeLists.txt:3); use builder.build_serialized_network(network, config)"),
    ]
    # the other use of max_workspace_size is a related location of its one finding
    ws = next(d for d in res.diagnostics if d.symbol == "max_workspace_size")
    assert [(r.span.line, r.message) for r in ws.related] == [(5, "max_workspace_size is also used here")]
    assert res.analysis["tensorrt_version"] == {
        "version": "8.6", "source": "inferred", "reason": "find_package(TensorRT 8.6) in CMakeLists.txt:3", "others": []}
    text = render_text(res.diagnostics, _ctx(res))
    assert "TensorRT 8.6 assumed: inferred from find_package(TensorRT 8.6) in CMakeLists.txt:3\n" in text
    doc = build_json(res.diagnostics, _ctx(res))
    assert doc["summary"]["tensorrt_version"]["version"] == "8.6"
    sarif = build_sarif(res.diagnostics, _ctx(res))
    assert sarif["runs"][0]["properties"]["tensorrtVersion"]["reason"] == "find_package(TensorRT 8.6) in CMakeLists.txt:3"


def test_requirements_pin_is_the_target(tmp_path):
    # tensorrt>=10,<11 is the newest 10 release: the 10.0 removals are errors; torch-tensorrt is another package
    res, got = _run(tmp_path, "requirements")
    why = "the project targets 10.x, inferred from requirements.txt:3"
    # (canBroadcastInputAcrossBatch, pure virtual in IPluginV2Ext, is a related location of the class's finding; the
    # two APIs removed in 10.0 are one finding)
    assert got == [
        ("TRT207", "plugins/foo.cpp", 5, "warning",
         "FooPlugin implements IPluginV2Ext, deprecated since TensorRT 8.5 (targeting 10.x, inferred from "
         "requirements.txt:3); use IPluginV3"),
        ("TRT610", "build.py", 3, "error",
         f"max_workspace_size was removed in TensorRT 10.0 (deprecated in 8.4; {why}) (and 1 more use in this file); "
         "use config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, size). Also removed in TensorRT 10.0 in this "
         "file: build_engine (related locations)"),
    ]
    assert res.analysis["tensorrt_version"]["reason"] == "tensorrt>=10,<11 in requirements.txt:3"


def test_in_tree_nvinferversion_header_is_the_target(tmp_path):
    res, got = _run(tmp_path, "nvinferversion")
    assert [(c, line, sev) for c, _p, line, sev, _m in got] == [("TRT207", 5, "warning"), ("TRT610", 3, "warning"),
                                                               ("TRT610", 4, "warning")]
    assert "(targeting 8.6, inferred from third_party/trt/include/NvInferVersion.h:3)" in got[0][4]
    assert res.analysis["tensorrt_version"]["reason"] == (
        "NV_TENSORRT_MAJOR 8, NV_TENSORRT_MINOR 6 in third_party/trt/include/NvInferVersion.h:3")


def test_no_version_known_nothing_is_judged_and_the_summary_says_so(tmp_path):
    # the same plugin and script as the other fixtures, which report TRT207/TRT610 against their version: with no
    # version set or found there is nothing to judge against (a TensorRT 7 codebase is not told what 11 removed)
    res, got = _run(tmp_path, "nothing")
    assert got == []
    assert res.analysis["tensorrt_version"] == {"version": None, "source": "", "reason": "", "others": []}
    assert ("no TensorRT version known: TensorRT API deprecations and removals are not judged (TRT207, TRT610); "
            "set tensorrt-version") in render_text(res.diagnostics, _ctx(res))


def test_configured_version_wins_over_the_tree(tmp_path):
    res, got = _run(tmp_path, "configured")  # trtlint.toml: 11.0; CMakeLists.txt: find_package(TensorRT 8.6)
    # (the two APIs removed in 10.0 are one TRT610 finding)
    assert [(c, line, sev) for c, _p, line, sev, _m in got] == [
        ("TRT207", 5, "warning"), ("TRT207", 10, "error"), ("TRT610", 3, "error")]
    assert got[1][4].endswith("removed in TensorRT 11.0 (targeting 11.0)")
    assert res.analysis["tensorrt_version"]["source"] == "configured"
    assert "TensorRT 11.0 assumed: configured (tensorrt-version)" in render_text(res.diagnostics, _ctx(res))


def test_each_program_has_its_own_version(tmp_path):
    """Two independent CMake projects: one pins 8.6, the other names nothing (and the root nothing either)."""
    for prog, pin in (("a", "find_package(TensorRT 8.6 REQUIRED)\n"), ("b", "")):
        shutil.copytree(FIXTURES / "nothing" / "plugins", tmp_path / prog / "plugins")
        (tmp_path / prog / "CMakeLists.txt").write_text(
            f"cmake_minimum_required(VERSION 3.18)\nproject({prog} LANGUAGES CXX)\n{pin}"
            f"add_library({prog} SHARED plugins/foo.cpp)\n")
    settings = load_settings(tmp_path)
    settings.select = ["TRT207"]
    res = run(settings, jobs=1, use_cache=False)
    # a is judged against 8.6 (which still has the line-10 method); b, with no version known, is not judged
    assert {d.span.path.split("/")[0] for d in res.diagnostics} == {"a"}
    assert not [d for d in res.diagnostics if d.span.line == 10]
    programs = res.analysis["tensorrt_version"]["programs"]
    assert {s: p["version"] for s, p in programs.items()} == {"a": "8.6", "b": None}
    assert "8.6 in 1 program, none known in 1 program" in json.dumps(render_text([], _ctx(res)))


def test_requirement_files_by_pip_convention(tmp_path):
    # the singular requirement.txt and a requirements/ directory pin the version as requirements.txt does
    for name, moved in (("singular", "requirement.txt"), ("directory", "requirements/runtime.txt")):
        root = tmp_path / name
        shutil.copytree(FIXTURES / "requirements", root)
        (root / moved).parent.mkdir(exist_ok=True)
        (root / "requirements.txt").rename(root / moved)
        settings = load_settings(root)
        settings.select = ["TRT207", "TRT610"]
        res = run(settings, jobs=1, use_cache=False)
        assert res.analysis["tensorrt_version"]["reason"] == f"tensorrt>=10,<11 in {moved}:3"
        assert sorted(d.severity.value for d in res.diagnostics if d.code == "TRT610") == ["error"]  # (2 APIs, 1 finding)


def test_a_placeholder_pin_is_no_version(tmp_path):
    # tensorrt==0.0.1 (PyPI's placeholder, pinned by an environment dump) is no release: no version is known
    root = tmp_path / "placeholder"
    shutil.copytree(FIXTURES / "requirements", root)
    (root / "requirements.txt").write_text("numpy==1.21.0\ntensorrt==0.0.1\n")
    settings = load_settings(root)
    settings.select = ["TRT207", "TRT610"]
    res = run(settings, jobs=1, use_cache=False)
    assert res.analysis["tensorrt_version"] is None or not res.analysis["tensorrt_version"].get("version")
    assert [d for d in res.diagnostics if d.code in ("TRT207", "TRT610")] == []


def test_a_version_in_a_trailing_comment_is_no_evidence():
    """Issue 33: a pin is evidence, a comment is not, also after code on the same line (`torch  # works with
    tensorrt>=10.0` in a requirements file; `# tensorrt==8.6` after a setup.py list); a '#' inside a quoted
    requirement or CMake string does not start a comment."""
    from trtlint.frontends.trtversion import evidence

    req = evidence("requirements.txt", b"numpy\ntorch  # works with tensorrt>=10.0\ntensorrt==8.6.1  # pinned\n")
    assert [(e.version, e.what, e.line) for e in req] == [("8.6", "tensorrt==8.6.1", 3)]
    setup = evidence("setup.py", b"install_requires=['numpy']  # tensorrt==8.6\nreqs = ['tensorrt>=10.3']  # API\n")
    assert [(e.version, e.line) for e in setup] == [("10.3", 2)]
    cmake = evidence("CMakeLists.txt", b'set(X "a#b") find_package(TensorRT 8.6)\nmessage("x") # find_package(TensorRT 7.1)\n')
    assert [(e.version, e.line) for e in cmake] == [("8.6", 1)]


def test_a_program_in_a_folder_named_for_a_release_takes_that_release(tmp_path):
    """Issue 33: a folder named for a release is that release. The root pins 11.1 (requirements.txt); the plugin
    program kept in ``legacy/FooPlugin-TRT8`` pins nothing: it is judged as TensorRT 8 (8.0: IPluginV2DynamicExt not
    deprecated yet), not against the root's 11.1; a pin inside such a folder wins over its name."""
    (tmp_path / "requirements.txt").write_text("tensorrt==11.1.0\n")
    for prog, pin in (("legacy/FooPlugin-TRT8", ""), ("legacy/BarPlugin-TRT8", "find_package(TensorRT 10.0 REQUIRED)\n"),
                      ("demo/TensorRT-11", "")):
        shutil.copytree(FIXTURES / "nothing" / "plugins", tmp_path / prog / "plugins")
        (tmp_path / prog / "CMakeLists.txt").write_text(
            f"cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX)\n{pin}"
            "add_library(p SHARED plugins/foo.cpp)\n")
    settings = load_settings(tmp_path)
    settings.select = ["TRT207"]
    res = run(settings, jobs=1, use_cache=False)
    programs = res.analysis["tensorrt_version"]["programs"]
    assert programs["legacy/FooPlugin-TRT8"]["version"] == "8.0"
    assert programs["legacy/FooPlugin-TRT8"]["reason"] == "the folder name legacy/FooPlugin-TRT8"
    assert programs["legacy/BarPlugin-TRT8"]["version"] == "10.0"  # its own pin wins over the folder's name
    # a major alone that the root already targets says no more: demo/TensorRT-11 is the root's 11.1
    assert programs["demo/TensorRT-11"]["version"] == "11.1"
    assert {d.span.path.split("/")[1] for d in res.diagnostics} == {"BarPlugin-TRT8", "TensorRT-11"}
    assert any("targeting 10.0, inferred from legacy/BarPlugin-TRT8/CMakeLists.txt:3" in d.message for d in res.diagnostics)
    line = json.dumps(render_text([], _ctx(res)))
    assert "folders named for a TensorRT release judged as that release: legacy/BarPlugin-TRT8 as 10.0" in line
    assert "legacy/FooPlugin-TRT8 as 8.0" in line


def test_code_its_name_marks_deprecated_is_named_in_the_summary_not_judged(tmp_path):
    """Issue 31: a folder or file whose name marks its code deprecated (``DeprecatedLayers/``, ``*-V2-deprecated.py``)
    is code kept for an older TensorRT: TRT207 and TRT610 do not judge it against the tree's 10.0, and the run says
    so (the summary line names each path and how many of its files were not judged; ``deprecated_code`` in the
    JSON report), never silently; ``judge-deprecated-code = true`` judges it, and then no such line is written. A
    ``legacy/`` folder is no such mark."""
    head = "import tensorrt as trt\n"
    (tmp_path / "requirements.txt").write_text("tensorrt==10.0.1\n")
    for rel, text in {
        "samples/DeprecatedLayers/RNN/main.py": head + "layer = network.add_rnn_v2(x, 1, 8, 4, op)\n",
        "samples/DeprecatedLayers/FullyConnected/main.py": head + "config.max_workspace_size = 1 << 30\n",
        "samples/Plugin/add_scalar-V2-deprecated.py": head + "class AddScalar(trt.IPluginV2DynamicExt):\n    pass\n",
        "samples/DeprecatedLayers/README.md": "old samples\n",
        "legacy/build.py": head + "e = builder.build_engine(network, config)\n",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    settings = load_settings(tmp_path)
    settings.select = ["TRT207", "TRT610"]
    res = run(settings, jobs=1, use_cache=False)
    assert [(d.code, d.span.path) for d in res.diagnostics] == [("TRT610", "legacy/build.py")]
    marked = res.analysis["tensorrt_version"]["deprecated_code"]
    assert marked == {"samples/DeprecatedLayers": 2, "samples/Plugin/add_scalar-V2-deprecated.py": 1}
    line = Analysis.from_dict(res.analysis).tensorrt_line()
    assert line.startswith("TensorRT 10.0 assumed: inferred from tensorrt==10.0.1 in requirements.txt:1; ")
    assert ("2 paths whose name marks them deprecated, kept for an older TensorRT, not judged for API deprecations "
            "and removals (TRT207, TRT610): samples/DeprecatedLayers (2 files), samples/Plugin/add_scalar-V2-deprecated.py; "
            "set judge-deprecated-code = true to judge them") in line
    assert "samples/DeprecatedLayers (2 files)" in json.dumps(render_text([], _ctx(res)))
    assert build_json([], _ctx(res))["summary"]["tensorrt_version"]["deprecated_code"] == marked
    # judged on request: every file, and the summary says nothing of them
    (tmp_path / "trtlint.toml").write_text("judge-deprecated-code = true\n")
    settings = load_settings(tmp_path)
    settings.select = ["TRT207", "TRT610"]
    res = run(settings, jobs=1, use_cache=False)
    assert sorted(d.span.path for d in res.diagnostics) == [
        "legacy/build.py", "samples/DeprecatedLayers/FullyConnected/main.py", "samples/DeprecatedLayers/RNN/main.py",
        "samples/Plugin/add_scalar-V2-deprecated.py"]
    assert "deprecated_code" not in res.analysis["tensorrt_version"]
    assert "deprecated" not in Analysis.from_dict(res.analysis).tensorrt_line()


def test_a_readme_names_its_release_in_prose_and_the_newest_counts():
    """Issue 31: a README's changelog names every release the project went through, spaced ("Update to TensorRT
    10.16") or hyphenated ("From branch TensorRT-10.0"): the newest is the one it builds with now, not the newest
    hyphenated one. A requirement file's comments are prose too; a longer name (TensorRT-LLM, torch_tensorrt), a
    major alone and any release of one ("TensorRT 9.X") name no release of TensorRT."""
    from trtlint.frontends.trtversion import evidence
    from trtlint.pipeline.trtversion import choose

    readme = (b"## Updates\n+ Update to TensorRT 10.16.\n+ Update to TensorRT 9.X GA.\n"
              b"+ Update to TensorRT 10.0 GA.\n  + From branch TensorRT-10.0, we discard old examples.\n"
              b"Also see TensorRT-LLM 0.20, torch_tensorrt 2.9 and TensorRT 11 plans.\n")
    found = evidence("README.md", readme)
    assert [(e.version, e.line) for e in found] == [("10.16", 2), ("10.0", 4), ("10.0", 5)]
    t = choose(found)
    assert (t.version, t.reason) == ("10.16", "TensorRT 10.16 in README.md:2")
    req = evidence("requirements.txt", b"numpy  # numpy==1.26.4 for TensorRT-10.16\ntorch\n")
    assert [(e.version, e.tier, e.line) for e in req] == [("10.16", 2, 1)]


def test_a_program_inside_another_takes_the_enclosing_programs_release(tmp_path):
    """Issue 31: a sample with its own Makefile inside a cookbook that names its release (the cookbook's README)
    is judged as the cookbook's release, not the root's (here none); a program with no evidence anywhere around it
    is named in the summary."""
    (tmp_path / "cook").mkdir()
    (tmp_path / "cook" / "README.md").write_text("# Cookbook\n+ Update to TensorRT 10.2.\n")
    for prog in ("cook", "cook/samples/foo", "other"):
        shutil.copytree(FIXTURES / "nothing" / "plugins", tmp_path / prog / "plugins")
        (tmp_path / prog / "Makefile").write_text("foo.so: plugins/foo.cpp\n\tg++ -shared -fPIC -o $@ $<\n")
    settings = load_settings(tmp_path)
    settings.select = ["TRT207"]
    res = run(settings, jobs=1, use_cache=False)
    programs = res.analysis["tensorrt_version"]["programs"]
    assert programs["cook/samples/foo"]["version"] == "10.2", programs
    assert programs["cook/samples/foo"]["reason"] == "TensorRT 10.2 in cook/README.md:2"
    assert programs["other"]["version"] is None
    assert programs["cook"]["version"] == "10.2"
    assert sorted((d.span.path, d.message.split(" (")[0]) for d in res.diagnostics) == [
        (f"{p}/plugins/foo.cpp", "FooPlugin implements IPluginV2Ext, deprecated since TensorRT 8.5")
        for p in ("cook", "cook/samples/foo")]
    assert "none known in 1 program (other)" in json.dumps(render_text([], _ctx(res)))


def test_a_path_in_a_cmake_message_is_a_hint_not_the_target(tmp_path):
    # "like -DTensorRT_ROOT=.../TensorRT-6.0.1.5/" in a FATAL_ERROR hint is an example for the reader; the README's
    # requirement names the release (a path the build sets is still a pin)
    root = tmp_path / "hint"
    shutil.copytree(FIXTURES / "find_package", root)
    (root / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\n"
        "project(foo LANGUAGES CXX)\n"
        "find_package(TensorRT)\n"
        "if(NOT TensorRT_FOUND)\n"
        "  message(\n"
        "    FATAL_ERROR\n"
        "      \"Can NOT find TensorRT (set TensorRT_ROOT),\n"
        "            like -DTensorRT_ROOT=D:/Libs/TensorRT-6.0.1.5/\")\n"
        "endif()\n"
        "add_library(foo SHARED plugins/foo.cpp)\n",
        encoding="utf-8",
    )
    (root / "README.md").write_text("# foo\n\n- TensorRT >= 7.0.0.11 (Recommended version: TensorRT-7.2.1.6)\n",
                                    encoding="utf-8")
    settings = load_settings(root)
    settings.select = ["TRT207", "TRT610"]
    res = run(settings, jobs=1, use_cache=False)
    assert res.analysis["tensorrt_version"]["version"] == "7.2"
    assert "README.md:3" in res.analysis["tensorrt_version"]["reason"]
    assert not any("6.0" in o for o in res.analysis["tensorrt_version"].get("others", []))
    (root / "CMakeLists.txt").write_text(
        (root / "CMakeLists.txt").read_text(encoding="utf-8") + "set(TensorRT_ROOT /opt/TensorRT-8.6.1.6)\n",
        encoding="utf-8")
    res = run(settings, jobs=1, use_cache=False)
    assert res.analysis["tensorrt_version"]["reason"] == "TensorRT-8.6.1.6 in CMakeLists.txt:11"


def test_a_deprecation_an_older_pinned_release_cannot_adopt_is_counted_in_the_summary(tmp_path):
    """Issue 31: the build pins TensorRT 10.0 and 8.6 (two requirement files); a plugin on IPluginV2DynamicExt
    (deprecated in 10.0) cannot move to IPluginV3 while the project keeps 8.6, which lacks it. TRT207 does not
    report it; the summary line counts it, names the replacement and the older pin, and the setting that reports
    it (never silent). With the setting, the deprecation is reported and the line says nothing of it."""
    from trtlint.checks.examples.plugin import plugin_class

    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements/requirements_8.txt").write_text("tensorrt==8.6.1\n")
    (tmp_path / "requirements/requirements_10.txt").write_text("tensorrt==10.0.1\n")
    (tmp_path / "plugins").mkdir()
    body = ('    char const* getPluginType() const noexcept override { return "Foo"; }\n'
            '    char const* getPluginVersion() const noexcept override { return "1"; }')
    (tmp_path / "plugins/foo.cpp").write_text(plugin_class(body, bases="public IPluginV2DynamicExt"))
    settings = load_settings(tmp_path)
    settings.select = ["TRT207"]
    res = run(settings, jobs=1, use_cache=False)
    assert [d.code for d in res.diagnostics] == []
    held = res.analysis["tensorrt_version"]["unadoptable_deprecations"]
    assert held == {"count": 1, "releases": ["8.6 (tensorrt==8.6.1 in requirements/requirements_8.txt:1)"],
                    "replacements": ["IPluginV3"]}
    line = Analysis.from_dict(res.analysis).tensorrt_line()
    assert line == ("TensorRT 10.0 assumed: inferred from tensorrt==10.0.1 in requirements/requirements_10.txt:1; the "
                    "tree also names 8.6; 1 TensorRT interface deprecation not reported (TRT207): its replacement "
                    "(IPluginV3) is not in TensorRT 8.6 (tensorrt==8.6.1 in requirements/requirements_8.txt:1), which "
                    "the build also pins, and can be adopted only when that release is dropped; set "
                    "report-unadoptable-deprecations = true to report them")
    assert build_json([], _ctx(res))["summary"]["tensorrt_version"]["unadoptable_deprecations"] == held
    # reported on request, and then the summary says nothing of it
    (tmp_path / "trtlint.toml").write_text("report-unadoptable-deprecations = true\n")
    settings = load_settings(tmp_path)
    settings.select = ["TRT207"]
    res = run(settings, jobs=1, use_cache=False)
    assert [(d.code, d.span.path, d.span.line) for d in res.diagnostics] == [("TRT207", "plugins/foo.cpp", 5)]
    assert "unadoptable_deprecations" not in res.analysis["tensorrt_version"]
    assert "not reported" not in Analysis.from_dict(res.analysis).tensorrt_line()


def test_the_older_side_of_the_codes_own_version_test_holds_a_deprecation_back(tmp_path):
    """Issue 31: the build pins TensorRT 10.0 only, but the code's `#if NV_TENSORRT_MAJOR >= 10 ... #else` keeps a
    branch for the releases before 10.0, which lack IPluginV3: the code is written to build there too, so TRT207
    does not ask for the port; the summary says so, naming the version test. A test whose floor is above the target
    (`>= 11` in a tree on 10.0) says nothing of an older release."""
    from trtlint.checks.examples.plugin import plugin_class

    (tmp_path / "requirements.txt").write_text("tensorrt==10.0.1\n")
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins/common.h").write_text(
        "#pragma once\n#if NV_TENSORRT_MAJOR >= 10\n#define TRT_NOEXCEPT noexcept\n#else\n#define TRT_NOEXCEPT\n#endif\n")
    body = ('    char const* getPluginType() const noexcept override { return "Foo"; }\n'
            '    char const* getPluginVersion() const noexcept override { return "1"; }')
    (tmp_path / "plugins/foo.cpp").write_text('#include "common.h"\n' + plugin_class(body, bases="public IPluginV2DynamicExt"))
    settings = load_settings(tmp_path)
    settings.select = ["TRT207"]
    res = run(settings, jobs=1, use_cache=False)
    assert [d.code for d in res.diagnostics] == []
    held = res.analysis["tensorrt_version"]["unadoptable_deprecations"]
    assert held == {"count": 1, "releases": ["releases before 10.0 (#if NV_TENSORRT_MAJOR >= 10 in plugins/common.h:2)"],
                    "replacements": ["IPluginV3"]}
    line = Analysis.from_dict(res.analysis).tensorrt_line()
    assert line.endswith("1 TensorRT interface deprecation not reported (TRT207): its replacement (IPluginV3) is not in "
                         "TensorRT releases before 10.0 (#if NV_TENSORRT_MAJOR >= 10 in plugins/common.h:2), which the "
                         "code's version tests also build for, and can be adopted only when those releases are "
                         "dropped; set report-unadoptable-deprecations = true to report them"), line
    # a floor above the target: no older side the target lacks
    (tmp_path / "plugins/common.h").write_text("#pragma once\n#if NV_TENSORRT_MAJOR >= 11\n#define X 1\n#endif\n")
    res = run(settings, jobs=1, use_cache=False)
    assert [(d.code, d.span.path) for d in res.diagnostics] == [("TRT207", "plugins/foo.cpp")]


def test_unused_abstract_base_and_a_test_of_marked_code_are_named_in_the_summary(tmp_path):
    """Never silent: TRT207 holds back the deprecation of an abstract base nothing derives, registers or creates
    (a vendored ``pluginInternal::BasePlugin``), and TRT610 treats a module naming a deprecated-marked folder in a
    string (a test building that sample) as that folder's code; the summary line and the JSON report name both."""
    from trtlint.checks.plugin.deprecated_plugin_interface import _BASE

    (tmp_path / "requirements.txt").write_text("tensorrt==10.8.0\n")
    head = "import tensorrt as trt\n"
    files = {
        "plugins/common/plugin.h": _BASE,
        "samples/Plugin-V2-deprecated/main.py": head + "def add(n, i, p):\n    return n.add_plugin_v2(i, p)\n",
        "tests/test_v2.py": head + 'from pathlib import Path\nD = Path(__file__).parent.parent / "samples" / '
                                   '"Plugin-V2-deprecated"\n\n\ndef test_v2(n, i, p):\n    n.add_plugin_v2(i, p)\n',
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    settings = load_settings(tmp_path)
    settings.select = ["TRT207", "TRT610"]
    res = run(settings, jobs=1, use_cache=False)
    assert [d.code for d in res.diagnostics] == []
    t = res.analysis["tensorrt_version"]
    assert t["unused_base_deprecations"] == {"count": 1, "classes": ["BasePlugin (plugins/common/plugin.h:4)"]}
    assert t["deprecated_code"] == {"samples/Plugin-V2-deprecated": 1,
                                    "tests/test_v2.py (names samples/Plugin-V2-deprecated, line 3)": 1}
    line = Analysis.from_dict(res.analysis).tensorrt_line()
    assert ("1 TensorRT interface deprecation not reported (TRT207) in abstract base classes that no project class "
            "derives and nothing registers or creates: BasePlugin (plugins/common/plugin.h:4)") in line
    assert "2 paths whose name marks them deprecated (or that name such a path)" in line
    assert build_json([], _ctx(res))["summary"]["tensorrt_version"]["unused_base_deprecations"] == t["unused_base_deprecations"]
