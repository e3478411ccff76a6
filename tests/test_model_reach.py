"""Can data from outside reach a creator's createPlugin (issue 31)? The evidence TRT205 weighs before it sets a check
on a value createPlugin is handed aside as an invariant (TRT215's): which units only the tree's own executables
hold (the build model), which files name a model parser or load a library at run time (a text scan), and the
editor's session keeping that scan in step with its buffers."""

from __future__ import annotations

from pathlib import Path

from trtlint.checks.examples.plugin import own_program
from trtlint.checks.plugin._model_reach import field_type_check
from trtlint.editor.session import Session
from trtlint.pipeline.buildmodel import build_model, executable_units
from trtlint.store.scancache import model_io

from .helpers import check_project, write_project

_ASSERT = "#define PLUGIN_ASSERT(a) do { if (!(a)) { abort(); } } while (0)"
_CHECK = "        PLUGIN_ASSERT(fc->fields[0].type == PluginFieldType::kINT32);"


def test_executable_units_follow_links_from_the_trees_executables(tmp_path):
    write_project(tmp_path, {
        "CMakeLists.txt": (
            "project(p)\n"
            "add_library(core STATIC core/a.cpp)\n"             # linked through `mid`: held by the executable
            "add_library(mid SHARED mid/b.cu)\n"
            "target_link_libraries(mid PUBLIC core)\n"
            "add_executable(app app/main.cpp)\n"
            "target_link_libraries(app mid)\n"
            "add_library(forothers MODULE plugin/c.cpp)\n"      # a plugin library no executable links
            "add_library(both SHARED shared/d.cpp)\n"
            "add_executable(tool shared/d.cpp tool/t.cpp)\n"),  # d.cpp also in an unlinked library: not only theirs
        **{p: "int f() { return 0; }\n" for p in ("core/a.cpp", "mid/b.cu", "app/main.cpp", "plugin/c.cpp",
                                                   "shared/d.cpp", "tool/t.cpp")},
    })
    m = build_model(tmp_path)
    kinds = {t.name: t.kind for t in m.targets}
    assert kinds == {"core": "static", "mid": "shared", "app": "executable", "forothers": "module", "both": "shared",
                     "tool": "executable"}
    assert executable_units(m.targets) == ("app/main.cpp", "core/a.cpp", "mid/b.cu", "tool/t.cpp")


def test_model_io_names_parsers_and_loaders():
    got = model_io(b'#include "NvOnnxParser.h"\nauto* p = nvonnxparser::createParser(*net, logger);\n'
                   b'lib = ctypes.CDLL("libfoo.so")\n')
    assert ("parser", 1, "NvOnnxParser") in got and ("parser", 2, "createParser") in got
    assert ("loader", 3, "CDLL") in got
    assert model_io(b"trtexec --onnx=m.onnx --plugins=libfoo.so\n") == (("parser", 1, "trtexec"), ("loader", 1, "--plugins"))
    # a program building its network in code names neither
    assert model_io(b"auto* layer = network->addPluginV2(&in, 1, *plugin);\nparseWeights(path);\n") == ()


def test_field_type_check_reads_only_a_type_comparison():
    assert field_type_check("fields[1].type == PluginFieldType::kINT32") == (1, frozenset({"INT32"}), "fields[1]")
    assert field_type_check("(fc->fields[i].type == nvinfer1::PluginFieldType::kFLOAT32 || "
                            "fc->fields[i].type == PluginFieldType::kFLOAT16)") == (None, frozenset({"FLOAT32", "FLOAT16"}),
                                                                                    "fc->fields[i]")
    assert field_type_check("PluginFieldType::kINT8 == f.type") == (None, frozenset({"INT8"}), "f")
    # anything else decides nothing
    assert field_type_check("fields[0].type != PluginFieldType::kINT32") is None
    assert field_type_check("fields[0].type == PluginFieldType::kINT32 && fields[0].length == 1") is None
    assert field_type_check("fields[0].type == PluginFieldType::kINT32 || fields[1].type == PluginFieldType::kINT32") is None


def _codes(res) -> list[tuple[str, int]]:
    return sorted((d.code, d.span.line) for d in res.diagnostics if d.span.path == "plugins/foo.cpp")


def test_a_check_no_model_reaches_is_trt215s_until_a_parser_appears(tmp_path):
    """The same tree checked whole and through the editor's session: the field-type check is TRT215's while the
    program only builds the plugin itself; a file that includes the ONNX parser makes it TRT205's again, in the
    session after the edit as in a full run."""
    write_project(tmp_path, own_program(_CHECK, _ASSERT))
    assert _codes(check_project(tmp_path, select=["TRT205", "TRT215"])) == [("TRT215", 29)]
    s = Session(tmp_path, use_cache=False, jobs=1, overrides={"select": ["TRT205", "TRT215"]})
    try:
        s.load()
        assert [(d.code, d.span.line) for d in s.check() if d.span.path == "plugins/foo.cpp"] == [("TRT215", 29)]
        s.set_buffer("app/main.cpp", '#include <NvOnnxParser.h>\n' + (tmp_path / "app/main.cpp").read_text())
        assert [(d.code, d.span.line) for d in s.check() if d.span.path == "plugins/foo.cpp"] == [("TRT205", 29)]
    finally:
        s.close()
    (tmp_path / "app/main.cpp").write_text('#include <NvOnnxParser.h>\n' + (tmp_path / "app/main.cpp").read_text())
    assert _codes(check_project(tmp_path, select=["TRT205", "TRT215"])) == [("TRT205", 29)]


def test_a_helper_another_creator_also_reaches_keeps_the_finding(tmp_path):
    """A check on a field's type in a helper two creators' createPlugin call: FooPlugin's only from the program's
    own code (its one route passes kINT32), ZedPlugin's from an ONNX node the tree emits. The site is reached from a
    creator a model reaches, so it stays TRT205's (each site is walked once, from the first creator reaching it)."""
    helper = (_ASSERT + "\nstatic void checkType(PluginField const& f)\n{\n"
              "    PLUGIN_ASSERT(f.type == PluginFieldType::kINT32);\n}")
    files = own_program("        checkType(fc->fields[0]);", helper, extra={"export/zed.py": (
        'from onnx import helper\n\n\ndef zed_node():\n    return helper.make_node("ZedPlugin", ["x"], ["y"], n=4)\n')})
    foo = files["plugins/foo.cpp"]
    creator = foo[foo.index("class FooPluginCreator"):foo.index("REGISTER_TENSORRT_PLUGIN")]
    files["plugins/foo.cpp"] = foo + "\n" + creator.replace("FooPluginCreator", "ZedPluginCreator").replace(
        '"FooPlugin"', '"ZedPlugin"') + "REGISTER_TENSORRT_PLUGIN(ZedPluginCreator);\n"
    write_project(tmp_path, files)
    res = check_project(tmp_path, select=["TRT205", "TRT215"])
    got = [(d.code, d.span.line) for d in res.diagnostics if d.span.path == "plugins/foo.cpp"]
    assert got == [("TRT205", 8)], [d.message for d in res.diagnostics]
