"""Scopes: a repository of independent programs (tests/fixtures/zoo: two CMake projects, each with its own copy of
the plugin YoloLayer_TRT, same class names and registration) is checked one program at a time. Classes,
functions and registrations of two programs never collapse into one: no duplicate registration between them,
and each copy's hot path is judged on its own (only b's allocates)."""

from __future__ import annotations

import shutil
from pathlib import Path

from trtlint.checks.registry import select_rules
from trtlint.config.settings import load_settings
from trtlint.index.project_index import CheckInputs
from trtlint.index.project_index import scope_of
from trtlint.pipeline.check import check_project
from trtlint.pipeline.run import run

ZOO = Path(__file__).parent / "fixtures" / "zoo"

# every finding in each program, exactly (code, path, line); the message heads show which call
PER_PROGRAM = [
    ("TRT304", "a/yololayer.cpp", 13, "the status of cudaMemcpyAsync (CUDA runtime) is discarded"),
    ("TRT203", "a/yololayer.h", 11, "plugin name 'YoloLayer_TRT' is written as a string literal"),
    ("TRT203", "a/yololayer.h", 12, "plugin version '1' is written as a string literal"),
    ("TRT301", "b/yololayer.cpp", 13, "cudaMalloc (device allocation) allocates on the hot path of YoloLayerPlugin::enqueue"),
    # the discarded status of that cudaMalloc is the TRT301 finding's note "also TRT304" (one finding per call)
    ("TRT304", "b/yololayer.cpp", 14, "the status of cudaMemcpyAsync (CUDA runtime) is discarded"),
    ("TRT203", "b/yololayer.h", 11, "plugin name 'YoloLayer_TRT' is written as a string literal"),
    ("TRT203", "b/yololayer.h", 12, "plugin version '1' is written as a string literal"),
]


def _facts(tmp_path: Path):
    proj = tmp_path / "zoo"
    shutil.copytree(ZOO, proj)
    settings = load_settings(proj)
    settings.extend_select = ["TRT203"]  # opt-in (issue 24); judged per program like the rest
    res = run(settings, jobs=1, use_cache=False)
    return proj, settings, res


def _rows(diags):
    return [(d.code, d.span.path, d.span.line, d.message) for d in diags]


def test_each_program_is_checked_with_its_own_index(tmp_path):
    proj, settings, res = _facts(tmp_path)
    rules = select_rules(settings.select, settings.ignore, settings.extend_select)
    checked = check_project(res.index.files.values(), CheckInputs(scopes=("a", "b")), rules, settings,
                            root=proj, profile=res.index.profile, packs=res.index.packs)
    rows = _rows(checked.diagnostics)
    assert [(c, p, l) for c, p, l, _ in rows] == [(c, p, l) for c, p, l, _ in PER_PROGRAM]
    for (_, _, _, msg), (_, _, _, head) in zip(rows, PER_PROGRAM):
        assert msg.startswith(head), msg
    # the hot-path chain names b's own helper, and every related location stays in the finding's program
    (alloc,) = [d for d in checked.diagnostics if d.code == "TRT301"]
    assert alloc.message.endswith("YoloLayerPlugin::enqueue -> forwardGpu -> cudaMalloc")
    for d in checked.diagnostics:
        assert all(scope_of(r.span.path, ("a", "b")) == scope_of(d.span.path, ("a", "b")) for r in d.related), d


def test_one_program_is_checked_as_before(tmp_path):
    """Without scopes (one program) the whole tree is one index: the two copies are one registry, so the
    second registration is a duplicate there, as TensorRT would see it if both were linked into one process."""
    proj, settings, res = _facts(tmp_path)
    rules = select_rules(settings.select, settings.ignore, settings.extend_select)
    def codes(scopes):
        checked = check_project(res.index.files.values(), CheckInputs(scopes=scopes), rules, settings,
                                root=proj, profile=res.index.profile, packs=res.index.packs)
        return [(d.code, d.span.path, d.span.line) for d in checked.diagnostics]

    whole = codes(())
    assert ("TRT108", "b/yololayer.cpp", 17) in whole
    assert codes(("a",)) == whole  # a single scope is one program too


def test_scope_of_takes_the_deepest_scope():
    assert scope_of("a/x.cpp", ("a", "a/sub")) == "a"
    assert scope_of("a/sub/x.cpp", ("a", "a/sub")) == "a/sub"
    assert scope_of("ab/x.cpp", ("a",)) == ""
    assert scope_of("tools/x.py", ("a", "b")) == ""


def test_the_build_model_names_the_programs_and_the_check_uses_them(tmp_path):
    """End to end: zoo/a and zoo/b are two CMake projects no other project adds, so the build model makes them
    two scopes, `trtlint check` checks each on its own (exactly the per-program findings above, no duplicate
    registration) and the summary counts both copies."""
    import json
    import subprocess
    import sys

    proj = tmp_path / "zoo"
    shutil.copytree(ZOO, proj)
    r = subprocess.run([sys.executable, "-m", "trtlint", "check", str(proj), "--format", "json", "--no-cache",
                        "--extend-select", "TRT203"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    data = json.loads(r.stdout)
    got = [(d["code"], d["location"]["path"], d["location"]["line"]) for d in data["diagnostics"]]
    assert got == [(c, p, l) for c, p, l, _ in PER_PROGRAM]
    assert data["summary"]["analysis"]["plugins"] == 2 and data["summary"]["analysis"]["creators"] == 2


def test_dump_index_lists_each_program_with_its_own_classes(tmp_path):
    """--dump-index keeps the whole-tree lists (one class per name: 1 plugin here) and lists each program with the
    plugins and creators of its own index, so a reader can count them against the tree."""
    import json
    import subprocess
    import sys

    proj = tmp_path / "zoo"
    shutil.copytree(ZOO, proj)
    r = subprocess.run([sys.executable, "-m", "trtlint", "check", str(proj), "--dump-index", "--no-cache"],
                       capture_output=True, text=True, timeout=300)
    data = json.loads(r.stdout)
    assert len(data["plugins"]) == 1
    assert [(p["scope"], [c["at"] for c in p["plugins"]], [c["at"] for c in p["creators"]]) for p in data["programs"]] == [
        ("a", ["a/yololayer.h:8"], ["a/yololayer.h:18"]),
        ("b", ["b/yololayer.h:8"], ["b/yololayer.h:18"]),
    ]


def test_dump_index_lists_the_custom_nodes_of_onnx_models(tmp_path):
    """--dump-index lists each ONNX model node no ONNX schema defines (op, domain, node, the model file), so a reader
    can count a model's plugin nodes against the tree; standard ops are not listed."""
    import json
    import subprocess
    import sys

    import onnx
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["t"]),
                           helper.make_node("MyPlugin_TRT", ["t"], ["y"], domain="trt.plugins", name="p0")], "g", [x], [y])
    (tmp_path / "models").mkdir()
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("trt.plugins", 1)]),
              str(tmp_path / "models" / "m.onnx"))
    r = subprocess.run([sys.executable, "-m", "trtlint", "check", str(tmp_path), "--dump-index", "--no-cache"],
                       capture_output=True, text=True, timeout=300)
    data = json.loads(r.stdout)
    assert [(n["op"], n["domain"], n["at"]) for n in data["model_nodes"]] == [("MyPlugin_TRT", "trt.plugins", "models/m.onnx")]


def test_a_header_of_an_enclosing_program_is_part_of_the_program_that_includes_it(tmp_path):
    """A sample built by its own Makefile includes a helper header from the directory of the enclosing program
    (a cookbook's `-I$(ROOT)/include`): the helper is compiled into the sample, so the work it does on the sample's
    hot path is the sample's, reported where the helper writes it, even when another program's unit was the one
    that read the header."""
    from trtlint.checks.examples.hotpath import plugin_cpp

    from .helpers import check_project, write_project

    helper = "#pragma once\n#include <cuda_runtime.h>\ninline void drainAll()\n{\n    cudaDeviceSynchronize();\n}\n"
    write_project(tmp_path, {
        "cook/Makefile": "all:\n\tnvcc -c a_tool.cu\n",
        "cook/a_tool.cu": '#include "include/helper.h"\nint main()\n{\n    drainAll();\n    return 0;\n}\n',
        "cook/include/helper.h": helper,
        "cook/plugins/foo/Makefile": "all:\n\tnvcc -shared -o libfoo.so foo.cpp\n",
        "cook/plugins/foo/foo.cpp": plugin_cpp("    drainAll();", '#include "../../include/helper.h"'),
    })
    res = check_project(tmp_path, select=["TRT302"])
    assert [(d.span.path, d.span.line, d.message.split(": ")[-1]) for d in res.diagnostics] == [
        ("cook/include/helper.h", 5, "FooPlugin::enqueue -> drainAll -> cudaDeviceSynchronize")]


def test_a_shared_python_lookup_is_judged_against_every_programs_creators(tmp_path):
    """A Python file in no program looks up a creator only program a registers. The whole project resolves it;
    b's own index does not (and names its own YoloLayer_TRT as the closest). A program's index may add findings in a
    shared C/C++ file its code reaches (tests/test_buildmodel.py), never such a lookup: no TRT101."""
    from trtlint.checks.examples.contract import pair_cpp

    proj = tmp_path / "zoo"
    shutil.copytree(ZOO, proj)
    (proj / "a" / "onlya.cpp").write_text(pair_cpp(name="YoloLayerV2_TRT", plugin="OnlyAPlugin", creator="OnlyACreator"))
    (proj / "tools").mkdir()
    (proj / "tools" / "build.py").write_text(
        "import tensorrt as trt\n\n\ndef make():\n"
        "    return trt.get_plugin_registry().get_plugin_creator(\"YoloLayerV2_TRT\", \"1\", \"\")\n")
    settings = load_settings(proj)
    res = run(settings, jobs=1, use_cache=False)
    assert res.analysis.get("programs") == {"CMake": 2}
    assert [d for d in res.diagnostics if d.span.path == "tools/build.py"] == []
