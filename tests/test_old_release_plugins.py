"""Plugin classes only code for older TensorRT releases creates (pipeline/oldrelease.py): their findings are set
aside and the summary names the class, the construction and the release; anything unknown judges them as before."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from trtlint.checks.examples.plugin import old_release_program, serialization_v2
from trtlint.frontends.trtversion import branch_chains, chain_at, chain_truth
from trtlint.report.context import Analysis

from .helpers import check_project, write_project

REPO = Path(__file__).resolve().parents[1]
_BAD = serialization_v2("write(d, mAxis); write(d, mScale); write(d, mFlag)",
                        "mAxis = read<int32_t>(d); mScale = read<int32_t>(d); mFlag = read<bool>(d)")


def _trt202(tmp_path: Path, files: dict, config=None):
    write_project(tmp_path, files)
    res = check_project(tmp_path, select=["TRT202"], config=config)
    return [(d.span.path, d.span.line) for d in res.diagnostics if d.code == "TRT202"], res


def test_chain_truth_at_a_release():
    data = (b"#if NV_TENSORRT_MAJOR < 6\na\n#elif NV_TENSORRT_MAJOR == 6\nb\n#else\nc\n#endif\n"
            b"#ifdef X\n#if NV_TENSORRT_MAJOR <= 7 /* old */\nd\n#endif\n#endif\n#if 0\ne\n#endif\n")
    ch = branch_chains(data)
    at = {w: chain_at(ch, n) for w, n in (("a", 2), ("b", 4), ("c", 6), ("d", 10), ("e", 14))}
    assert [chain_truth(at["a"], m, 0) for m in (5, 6, 8)] == [True, False, False]
    assert [chain_truth(at["b"], m, 0) for m in (5, 6, 8)] == [False, True, False]
    assert [chain_truth(at["c"], m, 0) for m in (5, 6, 8)] == [False, False, True]
    # under an #ifdef: not compiled where the version test fails, not known where it holds
    assert [chain_truth(at["d"], m, 0) for m in (7, 8)] == [None, False]
    assert chain_truth(at["e"], 5, 0) is False


def test_set_aside_and_named_in_the_summary_and_the_json(tmp_path):
    got, res = _trt202(tmp_path / "a", old_release_program(_BAD))
    assert got == []
    an = Analysis.from_dict(res.analysis)
    assert an.old_release == (("BarPlugin", "src/network.cpp", 7, "#if NV_TENSORRT_MAJOR < 6", "5.x", "8.6", 1,
                               ("plugins/bar.cpp",), ("BarCreator",)),)
    assert ("1 plugin class only code for older TensorRT releases creates was not judged (BarPlugin (made only at "
            "src/network.cpp:7 under `#if NV_TENSORRT_MAJOR < 6`, which TensorRT 5.x compiles, 8.6 not); no model or route "
            "reaches its creator; 1 finding set aside; set judge-old-release-plugins = true to judge it)") in an.line()
    out = subprocess.run([sys.executable, "-m", "trtlint", "check", str(tmp_path / "a"), "--format", "json",
                          "--no-cache", "--select", "TRT202"], capture_output=True, text=True, cwd=tmp_path / "a",
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    rep = json.loads(out.stdout)
    assert rep["summary"]["analysis"]["old_release_plugins_not_judged"] == [
        {"plugin": "BarPlugin", "path": "src/network.cpp", "line": 7, "directive": "#if NV_TENSORRT_MAJOR < 6",
         "compiled_by": "5.x", "target": "8.6", "findings": 1, "files": ["plugins/bar.cpp"],
         "creators": ["BarCreator"]}]
    assert rep["diagnostics"] == []


def test_other_forms_of_an_older_branch(tmp_path):
    # the #else of `>= 6`, and make_unique in a branch `<= 5`
    files = old_release_program(_BAD, "NV_TENSORRT_MAJOR >= 6")
    net = files["src/network.cpp"]
    a, b = net.index("#if NV_TENSORRT_MAJOR >= 6\n"), net.index("#else\n")
    old, new = net[a + len("#if NV_TENSORRT_MAJOR >= 6\n"):b], net[b + len("#else\n"):net.index("#endif")]
    files["src/network.cpp"] = net[:a] + "#if NV_TENSORRT_MAJOR >= 6\n" + new + "#else\n" + old + net[net.index("#endif"):]
    assert _trt202(tmp_path / "a", files)[0] == []
    files = old_release_program(_BAD, "NV_TENSORRT_MAJOR <= 5")
    files["src/network.cpp"] = files["src/network.cpp"].replace(
        "IPlugin* plugin = new BarPlugin(nullptr, 0);", "auto plugin = std::make_unique<BarPlugin>(nullptr, 0);")
    assert _trt202(tmp_path / "b", files)[0] == []


def test_anything_unknown_judges_it(tmp_path):
    bad = [("plugins/bar.cpp", 31)]
    # the program's release is not known
    files = old_release_program(_BAD)
    files["CMakeLists.txt"] = files["CMakeLists.txt"].replace("find_package(TensorRT 8.6 REQUIRED)\n", "")
    assert _trt202(tmp_path / "a", files)[0] == bad
    # a condition on a define besides the release: the branch may be compiled
    files = old_release_program(_BAD, "NV_TENSORRT_MAJOR < 6 || defined(USE_BAR)")
    assert _trt202(tmp_path / "b", files)[0] == bad
    # the class's name used in live code of another file (not a construction this module reads)
    files = old_release_program(_BAD)
    files["src/sizes.cpp"] = ('#include "../plugins/bar.h"\n// BarPlugin is sized here\nclass BarPlugin;\n'
                              "unsigned long barSize(BarPlugin* p)\n{\n    return p != nullptr;\n}\n")
    assert _trt202(tmp_path / "c", files)[0] == bad
    # a comment, an #include line and a forward declaration naming it decide nothing
    files["src/sizes.cpp"] = '#include "../plugins/BarPlugin.h"\n// BarPlugin is made elsewhere\nclass BarPlugin;\n'
    assert _trt202(tmp_path / "d", files)[0] == []
    # its creator is looked up by the program's own code (a route of its own reaches it)
    files = old_release_program(_BAD, extra={"src/app.cpp": (
        "#include <NvInferRuntime.h>\nusing namespace nvinfer1;\nIPluginCreator* find()\n{\n"
        '    return getPluginRegistry()->getPluginCreator("BarPlugin", "1");\n}\n')})
    assert _trt202(tmp_path / "e", files)[0] == bad
