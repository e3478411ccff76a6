"""The build model (trtlint.pipeline.buildmodel): targets, per-unit flags and scopes read from the CMake files
(never run) and from compile_commands.json, and what they change in a check: a plugin whose base class or
helper header is found only through the include directories of its CMake target resolves."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from trtlint.config.settings import load_settings
from trtlint.pipeline.buildmodel import build_model, header_include_dirs
from trtlint.pipeline.run import run

FIX = Path(__file__).parent / "fixtures"
TARGETINC = FIX / "buildmodel" / "targetinc"
SIBLING = FIX / "buildmodel" / "sibling"
LONEHDR = FIX / "buildmodel" / "lonehdr"


def _copy(src: Path, tmp_path: Path) -> Path:
    proj = tmp_path / src.name
    shutil.copytree(src, proj)
    subprocess.run(["git", "init", "-q", str(proj)], check=True)  # the project root
    return proj


def _check(proj: Path):
    res = run(load_settings(proj), jobs=1, use_cache=False)
    return res, [(d.code, d.span.path, d.span.line) for d in res.diagnostics]


def test_target_include_dirs_of_a_globbed_object_library(tmp_path):
    proj = _copy(TARGETINC, tmp_path)
    m = build_model(proj)
    (t,) = [t for t in m.targets if t.name == "demo_ops_obj"]
    assert t.dir == "ops" and t.scope == ""
    assert t.sources == ("ops/foo/foo.cpp",)  # GLOB_RECURSE through a quoted list variable
    assert t.include_dirs == (str(proj.resolve() / "ops" / "common"),)
    assert t.defines == ("DEMO_OPS=1",)
    assert t.links == ("nvinfer",)  # the generator expression is skipped
    assert m.flags_for("ops/foo/foo.cpp").args() == ("-I" + str(proj.resolve() / "ops" / "common"), "-DDEMO_OPS=1")
    assert m.cmake_args("tools/export.py") == () and m.scopes == ()


def test_check_resolves_a_base_class_found_only_through_the_target(tmp_path):
    proj = _copy(TARGETINC, tmp_path)
    res, rows = _check(proj)
    assert [c.cls.name for c in res.index.creators] == ["DemoScaleCreator"]
    assert [p.cls.name for p in res.index.plugins] == ["DemoScalePlugin"]
    # the misspelled attribute is judged against the creator's fields: the creator resolved
    assert ("TRT103", "tools/export.py", 6) in rows
    assert not any(code == "TRT101" for code, _, _ in rows)


def test_helper_header_in_a_sibling_include_directory(tmp_path):
    proj = _copy(SIBLING, tmp_path)
    m = build_model(proj)
    assert m.flags_for("plugin/bar.cpp").include_dirs == (str(proj.resolve() / "helpers"),)
    _res, rows = _check(proj)
    assert ("TRT102", "tools/export.py", 6) in rows  # the version is judged: the plugin and its creator resolved


def test_a_header_no_unit_reaches_takes_its_programs_include_dirs(tmp_path):
    # mmdeploy's layout: the only unit including ops/gather/gather_v7.hpp does so under `#if NV_TENSORRT_MAJOR <= 7`,
    # so the header is parsed on its own; its base is found through the include dirs of the target compiling the
    # units of its directory, and ops/legacy/v7 (no unit there) takes those of the target whose tree holds it
    proj = _copy(LONEHDR, tmp_path)
    m = build_model(proj)
    common = str(proj.resolve() / "ops" / "common")
    assert header_include_dirs(m, ["ops/gather/gather_v7.hpp", "ops/legacy/v7/scatter_v7.hpp", "CMakeLists.h"]) == {
        "ops/gather/gather_v7.hpp": (common,), "ops/legacy/v7/scatter_v7.hpp": (common,)}
    res, rows = _check(proj)
    assert not any(code == "TRT004" for code, _, _ in rows), rows
    assert sorted(c.cls.qualname for c in res.index.plugins) == ["lone::GatherV7Plugin", "lone::ScatterV7Plugin"]
    assert [c.cls.qualname for c in res.index.creators] == ["lone::GatherV7Creator"]


def test_public_include_dirs_propagate_through_links(tmp_path):
    (tmp_path / "core" / "inc").mkdir(parents=True)
    (tmp_path / "core" / "priv").mkdir()
    (tmp_path / "app").mkdir()
    (tmp_path / "cmake").mkdir()
    (tmp_path / "cmake" / "defs.cmake").write_text(
        "set(EXTRA_DEF FROM_INCLUDE)\nfunction(never_called)\n  add_definitions(-DBOGUS)\nendfunction()\n")
    (tmp_path / "CMakeLists.txt").write_text(
        "project(p)\ninclude(${CMAKE_CURRENT_SOURCE_DIR}/cmake/defs.cmake)\ninclude(CheckCXXCompilerFlag)\n"
        "add_subdirectory(core)\nadd_subdirectory(app)\nadd_definitions(-DLATE)\n")
    (tmp_path / "core" / "CMakeLists.txt").write_text(
        "add_library(core STATIC core.cpp)\n"
        "target_include_directories(core PUBLIC inc PRIVATE priv)\n"
        "target_compile_definitions(core INTERFACE USE_CORE PRIVATE BUILDING_CORE ${EXTRA_DEF})\n"
        "add_library(core::core ALIAS core)\n")
    (tmp_path / "app" / "CMakeLists.txt").write_bytes(
        b"# caf\xe9: a Latin-1 comment\nadd_executable(app main.cpp)\n"
        b"target_link_libraries(app PRIVATE core::core ${UNKNOWN_LIBS})\nunknown_command(x (\n")
    m = build_model(tmp_path)
    core = str(tmp_path.resolve() / "core")
    assert m.flags_for("core/core.cpp").include_dirs == (core + "/inc", core + "/priv")
    assert m.flags_for("core/core.cpp").defines == ("BUILDING_CORE", "FROM_INCLUDE")  # set in an include()d file
    assert m.flags_for("app/main.cpp").include_dirs == (core + "/inc",)
    assert m.flags_for("app/main.cpp").defines == ("USE_CORE",)  # add_definitions after the targets: not theirs


def test_scopes_are_the_independent_projects(tmp_path):
    m = build_model(FIX / "zoo")
    assert m.scopes == ("a", "b")
    assert m.scope_of("a/yololayer.cpp") == "a" and m.scope_of("README.md") == ""
    assert {(t.name, t.scope) for t in m.targets} >= {("myplugins", "a"), ("myplugins", "b")}
    # one project (its subdirectories and a sample project inside it included): no scopes
    assert build_model(TARGETINC).scopes == ()
    (tmp_path / "sample").mkdir()
    (tmp_path / "CMakeLists.txt").write_text("project(top)\n")
    (tmp_path / "sample" / "CMakeLists.txt").write_text("project(sample)\n")
    assert build_model(tmp_path).scopes == ()


def test_compile_commands_take_precedence(tmp_path):
    proj = _copy(TARGETINC, tmp_path)
    (proj / "build").mkdir()
    unit = proj / "ops" / "foo" / "foo.cpp"
    (proj / "build" / "compile_commands.json").write_text(json.dumps([
        {"directory": str(proj / "build"), "file": str(unit),
         "command": f"c++ -I../ops/common -isystem /opt/x -DFROM_CC=2 -D OTHER -c {unit}"},
    ]))
    m = build_model(proj, compile_commands=proj / "build" / "compile_commands.json")
    f = m.flags_for("ops/foo/foo.cpp")
    assert f.origin == ("compile_commands.json",)
    assert f.include_dirs == (str(proj / "ops" / "common"), "/opt/x") and f.defines == ("FROM_CC=2", "OTHER")
    assert m.cmake_args("ops/foo/foo.cpp") == ()  # the C++ frontend reads compile_commands.json itself
    _res, rows = _check(proj)  # found at build/compile_commands.json with no configuration
    assert ("TRT103", "tools/export.py", 6) in rows


def test_unit_flags_are_part_of_the_cache_key(tmp_path):
    import dataclasses

    from trtlint.store.cache import _key
    from trtlint.index.discover import discover

    proj = _copy(TARGETINC, tmp_path)
    (src,) = [f for f in discover(proj).files if f.rel == "ops/foo/foo.cpp"]
    keys = ("c", "o")
    assert _key(src, {}, keys) != _key(dataclasses.replace(src, flags=("-I/x",)), {}, keys)


def test_a_cmake_edit_reaches_a_warm_run(tmp_path):
    # the unit's flags are part of its cache key: dropping the include dir from the target is seen next run
    proj = _copy(TARGETINC, tmp_path)
    settings = load_settings(proj)
    rows = lambda res: {(d.code, d.span.path) for d in res.diagnostics}  # noqa: E731
    assert ("TRT103", "tools/export.py") in rows(run(settings, jobs=1, use_cache=True))
    lists = proj / "ops" / "CMakeLists.txt"
    lists.write_text(lists.read_text().replace("target_include_directories(demo_ops_obj PRIVATE", "# (none)\nset(X"))
    res = run(load_settings(proj), jobs=1, use_cache=True)
    assert ("TRT103", "tools/export.py") not in rows(res) and "DemoScaleCreator" not in [c.cls.name for c in res.index.creators]


def test_directories_with_their_own_build_file_are_programs(tmp_path):
    """Units no CMake target compiles are grouped by the nearest directory holding a Makefile or a setup.py:
    a tree of samples each built by its own Makefile is one program per sample (issue 33)."""
    from trtlint.pipeline.buildmodel import build_model

    files = {
        "samples/a/Makefile": "all:\n\tnvcc -o a a.cu\n",
        "samples/a/a.cu": "int a() { return 1; }\n",
        "samples/b/Makefile": "all:\n\tg++ -o b src/b.cpp\n",
        "samples/b/src/b.cpp": "int b() { return 2; }\n",  # the nearest build file is above the unit
        "ext/setup.py": "from setuptools import setup\nsetup()\n",
        "ext/csrc/k.cu": "int k() { return 3; }\n",
        # a CMake project's units: its own program, and a Makefile beside them is an alternative build, not one
        "lib/CMakeLists.txt": "project(lib)\nadd_library(lib foo.cpp)\n",
        "lib/Makefile": "all:\n\tg++ -c foo.cpp\n",
        "lib/foo.cpp": "int foo() { return 4; }\n",
        "loose/x.cpp": "int x() { return 5; }\n",  # no build file above it: in no program
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    m = build_model(tmp_path, list(files))
    assert m.programs == {"samples/a": "Makefile", "samples/b": "Makefile", "ext": "setup.py", "lib": "CMake"}
    assert m.scopes == ("ext", "lib", "samples/a", "samples/b")
    assert m.scope_of("samples/b/src/b.cpp") == "samples/b" and m.scope_of("loose/x.cpp") == ""
    # never silent: the unit no build file builds is named (the summary says "1 unit in no program (...)")
    assert m.uncovered == ("loose/x.cpp",)
    from trtlint.report.context import Analysis

    line = Analysis(plugins=0, creators=0, programs=(("Makefile", 2),), uncovered=m.uncovered).line()
    assert line == "analysed 0 plugins, 0 creators of 2 programs (Makefile 2); 1 unit in no program (no build file names them: loose/x.cpp)"
    # one build file: one program, no scopes (as a single CMake project)
    one = build_model(tmp_path, ["samples/a/Makefile", "samples/a/a.cu"])
    assert (one.programs, one.scopes) == ({}, ())


def test_the_summary_counts_the_programs_by_how_they_were_found(tmp_path):
    from trtlint.checks.examples.contract import pair_cpp

    for s in ("a", "b"):
        (tmp_path / "samples" / s).mkdir(parents=True)
        (tmp_path / "samples" / s / "fooPlugin.cpp").write_text(pair_cpp())
        (tmp_path / "samples" / s / "Makefile").write_text("all:\n\tnvcc -shared -o libfoo.so fooPlugin.cpp\n")
    from .helpers import check_project

    res = check_project(tmp_path)
    assert res.analysis["programs"] == {"Makefile": 2}
    from trtlint.report.context import Analysis

    # each Makefile's recipe names its source: a target of the build model, as a CMake target is
    assert Analysis.from_dict(res.analysis).line() == "analysed 2 plugins, 2 creators in 2 targets of 2 programs (Makefile 2)"
    assert not [d for d in res.diagnostics if d.code == "TRT108"]  # each sample registers its own FooPlugin



def test_a_call_resolves_in_its_own_program_not_a_same_named_function_of_another(tmp_path):
    """Two samples, each built by its own Makefile: a's header defines an inline check(); b declares check() in
    utils.h and defines it in utils.cu (no plugin in it: parsed only when the hot path needs it). The call-graph
    expansion resolved b's call project-wide to a's inline check, so utils.cu was never parsed and the
    cudaMalloc b's enqueue reaches through it was not seen; it resolves in b's own program now."""
    plugin = (
        "#include <NvInferRuntime.h>\n#include <cuda_runtime.h>\n#include \"{inc}\"\nusing namespace nvinfer1;\n"
        "class {cls} : public IPluginV2DynamicExt\n{{\npublic:\n"
        "    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,\n"
        "        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override\n"
        "    {{\n        check(0);\n        return 0;\n    }}\n}};\n"
    )
    files = {
        "samples/a/helper.h": "#pragma once\ninline int check(int e) { return e; }\n",
        "samples/a/aPlugin.cu": plugin.format(inc="helper.h", cls="APlugin"),
        "samples/a/Makefile": "all:\n\tnvcc -shared -o liba.so aPlugin.cu\n",
        "samples/b/utils.h": "#pragma once\nint check(int e);\n",
        "samples/b/utils.cu": "#include \"utils.h\"\n#include <cuda_runtime.h>\nint check(int e)\n{\n"
                              "    void* p;\n    cudaMalloc(&p, 16);\n    return e;\n}\n",
        "samples/b/bPlugin.cu": plugin.format(inc="utils.h", cls="BPlugin"),
        "samples/b/Makefile": "all:\n\tnvcc -shared -o libb.so bPlugin.cu utils.cu\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    from .helpers import check_project

    res = check_project(tmp_path)
    assert res.analysis["programs"] == {"Makefile": 2}
    assert [(d.code, d.span.path, d.span.line) for d in res.diagnostics] == [("TRT301", "samples/b/utils.cu", 6)]

def _defines_of_one_unit(tmp_path, cases: dict) -> None:
    """Each case: a CMake line before ``add_library(a SHARED src/a.cpp)`` -> the defines ``src/a.cpp`` gets."""
    for i, (line, want) in enumerate(cases.items()):
        proj = tmp_path / f"p{i}"
        (proj / "src").mkdir(parents=True)
        (proj / "src" / "a.cpp").write_text("int a;\n")
        (proj / "CMakeLists.txt").write_text(f"project(p)\n{line}\nadd_library(a SHARED src/a.cpp)\n")
        assert build_model(proj).flags_for("src/a.cpp").defines == want, line


def test_ndebug_from_the_build_type_or_the_flags(tmp_path):
    # issue 34: a release build type set in the CMake files (CMake then compiles with -DNDEBUG) or -DNDEBUG in the
    # flags defines NDEBUG for the targets added after it; a Debug build type or none does not
    cases = {
        "set(CMAKE_BUILD_TYPE Release)": ("NDEBUG",),
        'set(CMAKE_BUILD_TYPE "RelWithDebInfo" CACHE STRING "")': ("NDEBUG",),
        'set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} -O3 -DNDEBUG")': ("NDEBUG",),
        "set(CMAKE_BUILD_TYPE Debug)": (),
        "": (),
        # the release type's flags replaced without -DNDEBUG: CMake's default "-O3 -DNDEBUG" is gone (a triaged false
        # "assert compiled out"); appending to the default, or replacing another type's flags, keeps it
        'set(CMAKE_BUILD_TYPE "Release")\nset(CMAKE_CXX_FLAGS_RELEASE "-std=c++14 -O3")': (),
        'set(CMAKE_BUILD_TYPE Release)\nset(CMAKE_CXX_FLAGS_RELEASE "${CMAKE_CXX_FLAGS_RELEASE} -march=native")': ("NDEBUG",),
        "set(CMAKE_BUILD_TYPE Release)\nset(CMAKE_CXX_FLAGS_DEBUG -O0)": ("NDEBUG",),
    }
    _defines_of_one_unit(tmp_path, cases)


def test_defines_written_into_the_compile_flags(tmp_path):
    """``-D`` words in ``set(CMAKE_CXX_FLAGS ...)`` / ``CMAKE_CUDA_FLAGS`` / ``string(APPEND CMAKE_CXX_FLAGS ...)`` are the
    directory's defines (as add_definitions); a value with an unknown variable leaves the name defined (1)."""
    cases = {
        'set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} -DBUILD_SYSTEM=cmake -DMULTI=${MULTI}")': ("BUILD_SYSTEM=cmake", "MULTI"),
        'set(MULTI 0)\nset(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} -DMULTI=${MULTI}")': ("MULTI=0",),
        'string(APPEND CMAKE_CUDA_FLAGS " -DUSE_FP8 -O3")': ("USE_FP8",),
        'set(CMAKE_CXX_FLAGS "-Wall -DNDEBUG")': ("NDEBUG",),  # (the build type's, once)
        'set(OTHER_FLAGS "-DNOT_A_COMPILE_FLAG")': (),
    }
    _defines_of_one_unit(tmp_path, cases)


def test_a_makefile_is_read_for_its_sources_include_dirs_and_defines():
    """The Makefile frontend (issue 33): variables (=, :=, +=, ?=), $(wildcard), $(addprefix), substitution
    references, rule prerequisites and recipe command lines; a source list make computes is not known; a define in
    an ifeq branch is left out; a tab-indented assignment before the first rule is an assignment."""
    import fnmatch

    from trtlint.frontends.makefile import read_makefile

    files = ["main.cpp", "plugins/a.cu", "plugins/b.cu", "plugins/a.h", "tools/t.cpp"]

    def in_dir(p):
        return [f for f in files if fnmatch.fnmatchcase(f, p)]

    text = (
        "CUDA_PATH ?= /usr/local/cuda\n"
        "INCS = -I./include -I $(CUDA_PATH)/include -I$(UNSET_VAR)/x\n"
        "ifeq ($(FP16),1)\n"
        "\tCXXFLAGS += -DUSE_FP16\n"
        "endif\n"
        "CXXFLAGS += -DPLUGIN_API -O2 $(shell pkg-config --cflags opencv4)  # flags only: sources stay known\n"
        "SRCS := main.cpp $(wildcard plugins/*.cu) # not.cu in a comment\n"
        "SRCS += $(addprefix tools/,t.cpp)\n"
        "OBJS = $(SRCS:.cpp=.o)\n"
        "app: $(OBJS)\n"
        "\tnvcc -o $@ $^ $(INCS) -D NDEBUG\n"
    )
    f = read_makefile(text, in_dir)
    assert [s for s, _ in f.sources] == ["main.cpp", "plugins/a.cu", "plugins/b.cu", "tools/t.cpp"]
    assert f.include_dirs == ["./include", "/usr/local/cuda/include"]
    assert f.defines == ["PLUGIN_API", "NDEBUG"]
    assert f.sources_known and f.patterns == [("plugins/*.cu", 0)]
    computed = read_makefile("SRC_CU = $(shell find . -name '*.cu')\nlib.so: $(SRC_CU:.cu=.o)\n\tnvcc -shared -o $@ $^\n", in_dir)
    assert not computed.sources_known and "shell" in computed.unknown_why
    # a computed list reached through variables and a substitution reference, from a rule's prerequisites
    chained = read_makefile("PLUGIN_CU := $(shell find . -name '*.cu')\nPLUGIN_O := $(PLUGIN_CU:.cu=.o)\n"
                            "all: $(PLUGIN_O) main.exe\nmain.exe: main.cpp\n\tnvcc -o $@ $^\n", in_dir)
    assert not chained.sources_known
    # a computed value that only flags hold, used in a recipe, leaves the sources known
    flags_only = read_makefile("CFLAGS = -O2 $(shell pkg-config --cflags opencv4)\nlib.so: main.cpp\n"
                               "\t$(CXX) $(CFLAGS) -shared -o $@ $^\n", in_dir)
    assert flags_only.sources_known and [s for s, _ in flags_only.sources] == ["main.cpp"]
    objs = read_makefile("OBJ = a.o plugins/b.o\nall: $(OBJ)\n", in_dir)
    assert [o for o, _ in objs.objects] == ["a.o", "plugins/b.o"] and objs.sources == []


def test_a_makefile_programs_units_get_its_include_dirs(tmp_path):
    """A sample whose Makefile adds ``-I../common``: its plugin's header there is found, so the unit is analysed
    whole (before: partly, the header missing), and the program is a target with the Makefile's sources."""
    from trtlint.checks.examples.contract import pair_cpp
    from trtlint.pipeline.buildmodel import build_model

    from .helpers import check_project

    (tmp_path / "samples" / "common").mkdir(parents=True)
    (tmp_path / "samples" / "common" / "fooCommon.h").write_text("#pragma once\nstatic const int kFooCommon = 1;\n")
    for s in ("a", "b"):
        d = tmp_path / "samples" / s
        d.mkdir(parents=True)
        (d / "fooPlugin.cpp").write_text('#include "fooCommon.h"\n' + pair_cpp())
        (d / "Makefile").write_text("include ../Makefile.config\nSRCS = fooPlugin.cpp\nlib.so: $(SRCS)\n\tnvcc -shared $(INCS) -o $@ $^\n")
    (tmp_path / "samples" / "Makefile.config").write_text("INCS = -I../common\n")
    m = build_model(tmp_path)
    t = {x.name: x for x in m.targets}["samples/a/Makefile"]
    assert t.sources == ("samples/a/fooPlugin.cpp",)
    assert m.flags_for("samples/b/fooPlugin.cpp").include_dirs == (str(tmp_path / "samples" / "common"),)
    from trtlint.report.context import Analysis

    res = check_project(tmp_path)
    assert Analysis.from_dict(res.analysis).line() == "analysed 2 plugins, 2 creators in 2 targets of 2 programs (Makefile 2)"


def test_a_setup_py_extension_gives_its_sources_include_dirs_and_defines(tmp_path):
    """setup.py extensions (issue 33): literal sources, include_dirs, define_macros and -D/-I in
    extra_compile_args (a dict per compiler), a module-level name bound once; a computed source list is not
    known (then the program's units are its sources). The root's own setup.py builds units no program owns."""
    from trtlint.frontends.setuppy import read_setup
    from trtlint.pipeline.buildmodel import build_model

    text = (
        "import os\nfrom torch.utils.cpp_extension import CUDAExtension, BuildExtension\nfrom setuptools import setup\n"
        "INC = ['csrc/common']\n"
        "ext = CUDAExtension(name='plugins', sources=['csrc/plugin.cpp', os.path.join('csrc', 'kernel.cu')],\n"
        "    include_dirs=INC, define_macros=[('WITH_CUDA', None), ('TRT_MAJOR', '8')],\n"
        "    extra_compile_args={'cxx': ['-O3', '-DPLUGIN_API'], 'nvcc': ['-Icsrc/nv']})\n"
        "other = CUDAExtension('gen', sources=[f for f in os.listdir('gen')])\n"
        "setup(name='p', ext_modules=[ext, other], cmdclass={'build_ext': BuildExtension})\n"
    )
    a, b = read_setup(text)
    assert (a.name, a.sources, a.include_dirs, a.defines, a.sources_known) == (
        "plugins", ["csrc/plugin.cpp", "csrc/kernel.cu"], ["csrc/common", "csrc/nv"],
        ["WITH_CUDA", "TRT_MAJOR=8", "PLUGIN_API"], True)
    assert (b.name, b.sources_known) == ("gen", False)
    assert read_setup("def broken(:\n") is None
    known = "".join(ln for ln in text.splitlines(True) if not ln.startswith("other")).replace("ext, other", "ext")
    files = {"setup.py": known, "csrc/plugin.cpp": "int p;\n",
             "csrc/kernel.cu": "int k;\n", "csrc/unused.cpp": "int u;\n", "csrc/common/c.h": "int c;\n"}
    for rel, t in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(t)
    m = build_model(tmp_path, list(files))
    t = {x.name: x for x in m.targets}["setup.py"]
    assert t.sources == ("csrc/plugin.cpp", "csrc/kernel.cu")
    f = m.flags_for("csrc/plugin.cpp")
    assert f.include_dirs == (str(tmp_path / "csrc" / "common"), str(tmp_path / "csrc" / "nv"))
    assert f.defines == ("WITH_CUDA", "TRT_MAJOR=8", "PLUGIN_API") and m.programs == {}



def test_a_setup_py_building_its_include_dirs_in_a_function_gives_them(tmp_path):
    """A setup.py whose extension is made in a function from lists built step by step (``include_dirs = []``,
    ``.append(os.path.abspath('./x'))``, ``+= [...]``, a value not known among them): the known dirs count, relative
    to setup.py's directory; a source list with an unknown element stays not known."""
    from trtlint.frontends.setuppy import read_setup
    from trtlint.pipeline.buildmodel import build_model

    text = (
        "import os, glob\nfrom setuptools import setup, Extension\nHERE = os.path.dirname(os.path.abspath(__file__))\n"
        "def get_extensions():\n    extensions = []\n    include_dirs = []\n"
        "    include_path = os.path.abspath('./ops/csrc/common/cuda')\n"
        "    include_dirs.append(include_path)\n    include_dirs.append(os.path.join(os.getenv('TRT_DIR', '0'), 'include'))\n"
        "    if os.getenv('WITH_ORT'):\n        include_dirs += [os.path.join(HERE, 'ops', 'csrc', 'ort')]\n"
        "    op_files = glob.glob('./ops/csrc/plugins/*')\n"
        "    ext = Extension(name='ops._ext', sources=op_files, include_dirs=include_dirs)\n"
        "    extensions.append(ext)\n    return extensions\n"
        "setup(name='ops', ext_modules=get_extensions())\n"
    )
    (e,) = read_setup(text)
    assert (e.include_dirs, e.sources_known) == (["./ops/csrc/common/cuda", "./ops/csrc/ort"], False)
    files = {"setup.py": text, "ops/csrc/plugins/nms.cu": '#include "nms_kernel.cuh"\n',
             "ops/csrc/common/cuda/nms_kernel.cuh": "int k;\n"}
    for rel, t in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(t)
    m = build_model(tmp_path, list(files))
    assert m.flags_for("ops/csrc/plugins/nms.cu").include_dirs == (
        str(tmp_path / "ops" / "csrc" / "common" / "cuda"), str(tmp_path / "ops" / "csrc" / "ort"))

_LOOP_HEADER = """#pragma once
#include <NvInfer.h>
#include <cuda_runtime.h>
class LoopPlugin : public nvinfer1::IPluginV2DynamicExt {
 public:
  const char* getPluginType() const noexcept override;
  int enqueue(const nvinfer1::PluginTensorDesc* inputDesc, const nvinfer1::PluginTensorDesc* outputDesc,
              const void* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
};
"""
_LOOP_UNIT = """#include "engine/plugins/loop/loop_plugin.h"
const char* LoopPlugin::getPluginType() const noexcept { return "Loop_TRT"; }
int LoopPlugin::enqueue(const nvinfer1::PluginTensorDesc* inputDesc, const nvinfer1::PluginTensorDesc* outputDesc,
                        const void* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept {
  cudaDeviceSynchronize();
  return 0;
}
"""


def test_foreach_and_parent_scope_reach_the_plugin_sources(tmp_path):
    # a tree that reaches its plugin directories in a foreach() loop, each handing its globbed sources back with
    # set(... PARENT_SCOPE), its include root set once at the top: the units are the engine target's, with its
    # include dirs, so a plugin's own header included by a root-relative path resolves and its enqueue is judged
    files = {
        "CMakeLists.txt": "project(p)\ninclude_directories(${PROJECT_SOURCE_DIR}/src)\nadd_subdirectory(src/engine)\n",
        "src/engine/CMakeLists.txt": (
            "set(PLUGIN_SOURCES)\nset(PLUGIN_LIST loop other)\nlist(APPEND PLUGIN_LIST third)\n"
            "set(PLUGIN_DIR \"plugins/\")\n"
            "foreach(P IN LISTS PLUGIN_LIST)\n  include_directories(${PLUGIN_DIR}${P})\n"
            "  add_subdirectory(${PLUGIN_DIR}${P})\nendforeach()\n"
            "foreach(N RANGE 1 2)\n  add_definitions(-DPASS_${N})\nendforeach()\n"
            "add_library(engine SHARED ${PLUGIN_SOURCES})\n"),
        "src/engine/plugins/loop/CMakeLists.txt": (
            "file(GLOB SRCS *.cpp)\nset(PLUGIN_SOURCES ${PLUGIN_SOURCES} ${SRCS})\n"
            "set(PLUGIN_SOURCES ${PLUGIN_SOURCES} PARENT_SCOPE)\n"),
        "src/engine/plugins/other/CMakeLists.txt": "set(PLUGIN_SOURCES ${PLUGIN_SOURCES} ${CMAKE_CURRENT_SOURCE_DIR}/other.cpp PARENT_SCOPE)\n",
        "src/engine/plugins/third/CMakeLists.txt": "set(PLUGIN_SOURCES ${PLUGIN_SOURCES} ${CMAKE_CURRENT_SOURCE_DIR}/third.cpp PARENT_SCOPE)\n",
        "src/engine/plugins/loop/loop_plugin.h": _LOOP_HEADER,
        "src/engine/plugins/loop/loop_plugin.cpp": _LOOP_UNIT,
        "src/engine/plugins/other/other.cpp": "int other() { return 1; }\n",
        "src/engine/plugins/third/third.cpp": "int third() { return 1; }\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    m = build_model(tmp_path)
    (t,) = [t for t in m.targets if t.name == "engine"]
    assert t.sources == ("src/engine/plugins/loop/loop_plugin.cpp", "src/engine/plugins/other/other.cpp",
                         "src/engine/plugins/third/third.cpp")
    root = str(tmp_path.resolve())
    assert t.include_dirs[:2] == (root + "/src", root + "/src/engine/plugins/loop")
    assert t.defines == ("PASS_1", "PASS_2")
    res, rows = _check(tmp_path)
    assert ("TRT302", "src/engine/plugins/loop/loop_plugin.cpp", 5) in rows, rows
    assert (res.analysis["plugins"], res.analysis["partly_analysed_units"]) == (1, [])


def test_foreach_forms():
    from trtlint.pipeline.buildmodel.foreach import loop_items

    known = {"L": ["a", "b"], "M": ["c"]}

    def expand(a, _q):
        import re as _re

        if "${" not in a:
            return [a]
        m = _re.fullmatch(r"\$\{(\w+)\}", a)
        return list(known[m.group(1)]) if m and m.group(1) in known else None

    args = lambda *xs: [(x, False) for x in xs]  # noqa: E731
    assert loop_items(args("v", "x", "${L}", "${NOPE}"), expand, known) == ("v", ["x", "a", "b"])
    assert loop_items(args("v", "${NOPE}"), expand, known) is None  # nothing known: the body runs once, v unset
    assert loop_items(args("v", "IN", "LISTS", "L", "M", "ITEMS", "z"), expand, known) == ("v", ["a", "b", "c", "z"])
    assert loop_items(args("v", "RANGE", "3"), expand, known) == ("v", ["0", "1", "2", "3"])
    assert loop_items(args("v", "RANGE", "2", "6", "2"), expand, known) == ("v", ["2", "4", "6"])
    assert loop_items(args("v", "IN", "ZIP_LISTS", "L", "M"), expand, known) is None


def test_an_include_rooted_at_an_ancestor_is_guessed_and_said(tmp_path):
    # no build file says that source/ is an include root; the unit includes its own header by a path rooted there:
    # the directory is guessed for that unit, the plugin is analysed, and the summary names the guess
    from trtlint.report.context import Analysis

    files = {
        "source/engine/plugins/loop/loop_plugin.h": _LOOP_HEADER,
        "source/engine/plugins/loop/loop_plugin.cpp": _LOOP_UNIT,
        # a path that exists nowhere: not guessed, still missing
        "source/engine/plugins/other/other.cpp": "#include \"nowhere/none.h\"\nint getPluginNameOf() { return 1; }\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    res, rows = _check(tmp_path)
    assert ("TRT302", "source/engine/plugins/loop/loop_plugin.cpp", 5) in rows, rows
    a = Analysis.from_dict(res.analysis)
    assert a.guessed == (("source/engine/plugins/loop/loop_plugin.cpp", "source/", "engine/plugins/loop/loop_plugin.h"),)
    assert a.line().startswith("analysed 1 plugin, 0 creators")
    assert a.line().endswith("; include dirs guessed for 1 unit (source/: includes found nowhere else were found there)")
    assert [u for u, _m in a.partly] == ["source/engine/plugins/other/other.cpp"]


def test_a_bare_include_in_an_ancestor_folder_is_guessed_and_said(tmp_path):
    # a setup.py that computes its include dirs in a function (not read): the unit includes its header by a bare
    # name that lives one folder up; that folder is guessed for the unit and the plugin is analysed. A bare name
    # found only in a sibling's folder is not guessed (it may be another program's header of the same name)
    from trtlint.report.context import Analysis

    files = {
        "setup.py": ("import os\nfrom setuptools import setup\n"
                     "def exts():\n    inc = os.path.abspath('./ops/tensorrt')\n    return []\n"
                     "setup(name='p', ext_modules=exts())\n"),
        "ops/tensorrt/loop_plugin.hpp": _LOOP_HEADER,
        "ops/tensorrt/plugins/loop_plugin.cpp": _LOOP_UNIT.replace('"engine/plugins/loop/loop_plugin.h"',
                                                                   '"loop_plugin.hpp"'),
        "ops/other/only_here.h": "int only;\n",
        "ops/tensorrt/plugins/user.cpp": "#include \"only_here.h\"\nint getPluginNameOf() { return only; }\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    res, rows = _check(tmp_path)
    assert ("TRT302", "ops/tensorrt/plugins/loop_plugin.cpp", 5) in rows, rows
    a = Analysis.from_dict(res.analysis)
    assert a.guessed == (("ops/tensorrt/plugins/loop_plugin.cpp", "ops/tensorrt/", "loop_plugin.hpp"),)
    assert a.line().startswith("analysed 1 plugin, 0 creators")
    assert a.line().endswith("; include dirs guessed for 1 unit (ops/tensorrt/: includes found nowhere else were "
                             "found there)")
    assert [u for u, _m in a.partly] == ["ops/tensorrt/plugins/user.cpp"]


def test_a_build_script_running_nvcc_is_a_program_with_its_flags(tmp_path):
    """Shell build scripts (issue 33): a directory whose script runs nvcc/g++ on its sources is a program; the
    command lines' -I/-D (with the script's simple variables expanded) are its units' flags. A script that runs no
    compiler makes no program."""
    from trtlint.frontends.buildscript import read_script
    from trtlint.pipeline.buildmodel import build_model

    script = ("#!/bin/bash\nset -e\nCUDA=/usr/local/cuda\nINC=../common\n"
              "nvcc -shared -Xcompiler -fPIC -I${INC} -I $CUDA/include -DUSE_FP16 \\\n"
              "    plugin.cu -o libplugin.so  # the plugin\n"
              "g++ -O2 main.cpp -I$(pwd)/x -o main && ./main\n")
    f = read_script(script)
    assert [s for s, _ in f.sources] == ["plugin.cu", "main.cpp"] and f.commands == 2
    assert f.include_dirs == ["../common", "/usr/local/cuda/include"] and f.defines == ["USE_FP16"]
    files = {"samples/a/build.sh": script, "samples/a/plugin.cu": "int a;\n", "samples/a/main.cpp": "int m;\n",
             "samples/b/build.sh": script, "samples/b/plugin.cu": "int b;\n", "samples/b/main.cpp": "int m;\n",
             "samples/c/run.sh": "python3 infer.py\n", "samples/c/k.cu": "int k;\n", "samples/common/c.h": "int c;\n"}
    for rel, t in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(t)
    m = build_model(tmp_path, list(files))
    assert m.programs == {"samples/a": "script", "samples/b": "script"}
    assert m.flags_for("samples/b/plugin.cu").include_dirs == (str(tmp_path / "samples" / "common"), "/usr/local/cuda/include")
    assert m.flags_for("samples/a/plugin.cu").defines == ("USE_FP16",) and m.flags_for("samples/c/k.cu") is None


def test_a_target_compiling_a_header_defined_plugin_through_an_include_is_counted(tmp_path):
    # the plugin and its creator live in a header; the unit CMake builds only includes it (no marker of its own):
    # the target holds the plugin's code, so the summary counts it ("in 1 target", not "in 0 targets")
    from trtlint.checks.examples.contract import pair_cpp

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "fooPlugin.h").write_text("#pragma once\n" + pair_cpp())
    (tmp_path / "src" / "plugins.cpp").write_text('#include "fooPlugin.h"\nint trtlint_fixture_anchor = 0;\n')
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX)\nadd_library(foo SHARED src/plugins.cpp)\n")
    from .helpers import check_project
    from trtlint.report.context import Analysis

    res = check_project(tmp_path)
    assert Analysis.from_dict(res.analysis).line().startswith("analysed 1 plugin, 1 creator in 1 target"), res.analysis


def test_the_summary_walks_no_includes_when_every_counted_class_is_defined_in_a_unit(tmp_path, monkeypatch):
    # the targets that hold a header-defined plugin are found through the units' #include names; when every counted
    # class has its methods in a unit, the target count comes from the targets' sources alone and that walk is not
    # made (it was the summary's largest cost after a one-file edit: ~5-30 ms on Edge-LLM 0.5.0)
    from trtlint.checks.examples.contract import pair_cpp
    from trtlint.pipeline.unincluded import IncludeReach
    from trtlint.report.context import Analysis

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "fooPlugin.cpp").write_text(pair_cpp())
    (tmp_path / "src" / "util.h").write_text("#pragma once\nint util();\n")
    (tmp_path / "src" / "tool.cpp").write_text('#include "util.h"\nint main() { return util(); }\n')
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX)\nadd_library(foo SHARED src/fooPlugin.cpp)\n"
        "add_executable(tool src/tool.cpp)\n")
    walked = []
    real = IncludeReach.reached
    monkeypatch.setattr(IncludeReach, "reached", lambda self, roots: walked.append(tuple(roots)) or real(self, roots))
    from .helpers import check_project

    res = check_project(tmp_path)
    assert Analysis.from_dict(res.analysis).line().startswith("analysed 1 plugin, 1 creator in 1 target"), res.analysis
    assert walked == [], walked


def _shared_helper_samples(tmp_path, include_line: str, top_line: str) -> None:
    """Two samples, each built by its own Makefile that includes a shared ``include/Makefile.inc``: the file holds
    the rule that compiles the shared ``include/helper.cu`` (whose ``helperSize`` allocates) and the ``-I`` for
    its header. Sample b's enqueue calls ``helperSize``; sample a defines a ``helperSize`` of its own."""
    plugin = (
        "#include <NvInferRuntime.h>\n#include <cuda_runtime.h>\n#include \"{inc}\"\nusing namespace nvinfer1;\n"
        "class {cls} : public IPluginV2DynamicExt\n{{\npublic:\n"
        "    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,\n"
        "        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override\n"
        "    {{\n        helperSize(4);\n        return 0;\n    }}\n}};\n"
    )
    mk = (f"{top_line}\n{include_line}\n"
          "lib.so: {obj} helper.o\n\tnvcc -shared -o $@ $^\n%.o: %.cu\n\tnvcc -c $(INCS) -o $@ $<\n")
    files = {
        "cookbook/include/Makefile.inc": "INCS = -I. -I\"$(TOP)/include\"\n"
                                         "helper.o: $(TOP)/include/helper.cu\n\tnvcc -c $(INCS) -o $@ $<\n",
        "cookbook/include/helper.h": "#pragma once\nint helperSize(int n);\n",
        "cookbook/include/helper.cu": "#include \"helper.h\"\n#include <cuda_runtime.h>\nint helperSize(int n)\n{\n"
                                      "    void* p;\n    cudaMalloc(&p, n);\n    return n;\n}\n",
        "cookbook/samples/a/local.h": "#pragma once\ninline int helperSize(int n) { return n; }\n",
        "cookbook/samples/a/aPlugin.cu": plugin.format(inc="local.h", cls="APlugin"),
        "cookbook/samples/a/Makefile": mk.format(obj="aPlugin.o"),
        "cookbook/samples/b/bPlugin.cu": plugin.format(inc="helper.h", cls="BPlugin"),
        "cookbook/samples/b/Makefile": mk.format(obj="bPlugin.o"),
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)


def test_an_include_under_a_top_dir_a_shell_loop_finds_is_read(tmp_path):
    """``include $(TOP)/include/Makefile.inc`` with TOP computed by ``$(shell ...)`` (a loop walking up to the
    directory holding the file): make reads the file, so its rule compiling the shared ``helper.cu`` is part of
    each program. Before, an include naming a variable was not read: helper.cu was in no program, b's call to
    helperSize resolved to nothing (a's same-named inline helper is another program's), and the cudaMalloc it
    reaches was not reported."""
    top = ('TOP ?= $(shell d="$(abspath .)"; while [ "$$d" != "/" ] && [ ! -f "$$d/include/Makefile.inc" ]; '
           'do d=$$(dirname "$$d"); done; echo "$$d")')
    _shared_helper_samples(tmp_path, "include $(TOP)/include/Makefile.inc", top)
    m = build_model(tmp_path)
    t = {x.name: x for x in m.targets}["cookbook/samples/b/Makefile"]
    assert t.sources == ("cookbook/include/helper.cu", "cookbook/samples/b/bPlugin.cu")
    assert t.include_dirs == (str(tmp_path / "cookbook" / "samples" / "b"), str(tmp_path / "cookbook" / "include"))
    assert not m.problems
    from .helpers import check_project

    res = check_project(tmp_path)
    assert res.analysis["programs"] == {"Makefile": 2}
    assert [(d.code, d.span.path, d.span.line) for d in res.diagnostics] == [("TRT301", "cookbook/include/helper.cu", 6)]


def test_an_include_through_a_variable_set_in_the_file_is_read(tmp_path):
    # TensorRT's samples: MAKEFILE ?= ../Makefile.config, include $(MAKEFILE); the variable is the file's own, or one
    # an earlier included file sets
    _shared_helper_samples(tmp_path, "include $(CONFIG)", "TOP = ../..\nCONFIG ?= $(TOP)/include/Makefile.inc")
    t = {x.name: x for x in build_model(tmp_path).targets}["cookbook/samples/a/Makefile"]
    assert t.sources == ("cookbook/include/helper.cu", "cookbook/samples/a/aPlugin.cu")
    (tmp_path / "cookbook" / "paths.mk").write_text("TOP = ../..\nCONFIG = $(TOP)/include/Makefile.inc\n")
    _shared_helper_samples(tmp_path, "include ../../paths.mk\ninclude $(CONFIG)", "")
    t = {x.name: x for x in build_model(tmp_path).targets}["cookbook/samples/b/Makefile"]
    assert t.sources == ("cookbook/include/helper.cu", "cookbook/samples/b/bPlugin.cu")


def test_a_makefile_of_many_includes_reads_each_text_once(tmp_path):
    """A hostile tree: 3000 `include` lines of a 1 MiB file. make would read it 3000 times; the reader reads at most
    MAX_TEXT characters of included files in all, and the text before each include line once (not once per line)."""
    from trtlint.pipeline.buildmodel import makeprog

    (tmp_path / "big.mk").write_text(("X = " + "y" * 1000 + "\n") * 1024)
    (tmp_path / "Makefile").write_text("include big.mk\n" * 3000 + "all: a.cpp\n\tg++ -o a a.cpp\n")
    reads = []
    real = makeprog._read
    makeprog._read = lambda root, rel, limit: reads.append(rel) or real(root, rel, limit)
    try:
        got = makeprog.read_program(str(tmp_path), "", "Makefile", ["Makefile", "big.mk", "a.cpp"], 1 << 22)
    finally:
        makeprog._read = real
    assert got is not None and got[1] == ["a.cpp"]
    assert len(reads) <= 1 + makeprog.MAX_TEXT // (1 << 20) + 1


def test_an_include_not_found_is_said_and_leaves_the_sources_unknown(tmp_path):
    """A plain ``include`` make would need but that is found nowhere (no directory at or above the Makefile's holds
    it) is a problem of the run (TRT001, naming the line), and the program's source list is not known (every unit
    under its directory is its own); ``-include`` of a missing file is make's optional include: nothing said."""
    _shared_helper_samples(tmp_path, "include $(TOP)/config/rules.mk\n-include $(DEPDIR)/deps.mk $(shell ls *.d)", "")
    m = build_model(tmp_path)
    assert sorted(p for p in m.problems if "not read" in p[2]) == [
        (f"cookbook/samples/{s}/Makefile", 2,
         "`include $(TOP)/config/rules.mk` not read: $(TOP) is computed or set outside the file, and neither the "
         "Makefile's directory nor one above it holds config/rules.mk; the program's sources, include dirs and "
         "defines are taken without it") for s in ("a", "b")]
    # a path make computes otherwise ($(shell ...)): said too, for a plain include
    (tmp_path / "cookbook" / "samples" / "a" / "Makefile").write_text("include $(shell ./find-rules.sh)\nall:\n")
    assert [p for p in build_model(tmp_path).problems if p[0] == "cookbook/samples/a/Makefile"] == [
        ("cookbook/samples/a/Makefile", 1, "`include $(shell ./find-rules.sh)` not read: make computes "
         "$(shell ./find-rules.sh) in a way not followed here; the program's sources, include dirs and defines are "
         "taken without it")]
    assert {x.name: x for x in m.targets}["cookbook/samples/b/Makefile"].sources == ("cookbook/samples/b/bPlugin.cu",)


def test_a_define_from_a_variable_set_in_a_conditional_branch_is_not_known():
    # `ifeq ($(TARGET_DEVICE),aarch64)\n CFLAGS := -DPLATFORM_TEGRA\nendif`: which branch make takes is not known, so a
    # -D in the variable's words is not a define of the units, even where the variable is used outside the branch
    # (one added outside any branch is);
    # the shell's quotes around an -I path are not part of it
    from trtlint.frontends.makefile import read_makefile

    f = read_makefile('ifeq ($(TARGET_DEVICE),aarch64)\n  CFLAGS := -DPLATFORM_TEGRA\nendif\nCFLAGS += -DALWAYS\n'
                      'INC = -I"$(HOME_DIR)/inc" -I"/opt/x/include"\nlib.so: a.cpp\n\t$(CXX) $(CFLAGS) $(INC) -o $@ $^\n',
                      lambda _p: [])
    assert f.defines == ["ALWAYS"] and f.include_dirs == ["/opt/x/include"]  # (added outside the branch: always)
    # a target-specific variable (`debug: CFLAGS += -DDEBUG`) is set only when that target is built
    g = read_makefile("CFLAGS = -DALWAYS\ndebug: CFLAGS += -DDEBUG -ggdb\ndebug: all\nall: a.cpp\n\t$(CXX) $(CFLAGS) -o $@ $^\n",
                      lambda _p: [])
    assert g.defines == ["ALWAYS"] and [s for s, _ in g.sources] == ["a.cpp"]


def test_a_helper_in_an_enclosing_programs_folder_is_part_of_the_sample_that_compiles_it(tmp_path):
    """As above, and the samples' parent folder is a program of its own (its ``setup.py`` packages the Python side),
    so the shared ``include/helper.cu`` lies in that program's folder, not in no program. Sample b's Makefile still
    compiles it: its facts are part of b's own index, and what b's enqueue reaches there is b's finding. Before,
    b's index held only its own folder's files and the files in no program: the call went nowhere."""
    top = ('TOP ?= $(shell d="$(abspath .)"; while [ "$$d" != "/" ] && [ ! -f "$$d/include/Makefile.inc" ]; '
           'do d=$$(dirname "$$d"); done; echo "$$d")')
    _shared_helper_samples(tmp_path, "include $(TOP)/include/Makefile.inc", top)
    (tmp_path / "cookbook" / "setup.py").write_text('from setuptools import setup\n\nsetup(name="cookbook")\n')
    from .helpers import check_project

    res = check_project(tmp_path)
    assert res.analysis["programs"] == {"Makefile": 2, "setup.py": 1}
    assert [(d.code, d.span.path, d.span.line) for d in res.diagnostics] == [("TRT301", "cookbook/include/helper.cu", 6)]
