from __future__ import annotations

import re
from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from ..base import Rule
from .cuda_source_in_plugins_dir import glob_matches

_VENDORED = ("3rdparty", "third_party", "thirdparty", "third-party", "external", "extern", "vendor", "_deps")

# a code generator's placeholder in a test's name (``Op__OPNAME__``): googletest names hold no such token
_PLACEHOLDER = re.compile(r"__[A-Z][A-Z0-9]*__")

_TEST_CPP = "#include <gtest/gtest.h>\nTEST(Rope, Cache)\n{\n    EXPECT_EQ(1, 1);\n}\n"


class UnregisteredCppUnittest(Rule):
    """A C++ googletest source that no CMake test target builds: its tests never run.

    ## What it does
    Finds C++/CUDA files that define googletest cases (`TEST`, `TEST_F`, `TEST_P`, `TYPED_TEST`) and checks
    that a CMake test target compiles them: a target registered with `add_test`/`gtest_discover_tests`/
    `gtest_add_tests`, made and registered at once (`catkin_add_gtest`, `ament_add_gtest`,
    `ament_add_ros_isolated_gtest`, any `*add_*gtest` / `*add_*gmock`, or the list file's own `function`/`macro`
    whose body makes such a test of a parameter: its calls' sources count; `${PROJECT_NAME}` is the list
    file's own `project()`; a function or macro of another list file, when the file defining it makes or registers
    a test with it: `nvcv_add_test(target group)` whose body runs `add_test` on its parameter), or linked with googletest (by name, `GTest::`, `${GTEST_LIBRARIES}`), whose explicit sources name the file or whose sources
    come from a `file(GLOB ...)` that matches it. Vendored trees (`3rdParty/`, `third_party/`, ...),
    files in a Bazel package (a `BUILD`/`BUILD.bazel` file in their directory or above, as Torch-TensorRT's
    `tests/cpp`), a code generator's template (every test named with a placeholder such as `__OPNAME__`) and
    projects without CMake files are not judged.

    ## Why it matters
    A test file added next to the others but outside the test target's glob or list (a `.cu` under a
    `*.cpp` glob, a new subdirectory under a non-recursive glob, a file missing from an explicit list)
    compiles nowhere: the suite stays green while the new tests never run.

    ## Example
    ```cmake
    file(GLOB UNIT_TESTS_SRCS unittests/*.cpp)          # unittests/kernels/ropeTests.cu is not in it
    add_executable(unitTest ${UNIT_TESTS_SRCS})
    target_link_libraries(unitTest PRIVATE gtest_main)
    ```

    ## Fix
    Add the file to a test target (widen the glob: `GLOB_RECURSE`, a `*.cu` pattern; or list it), or
    delete it if it is obsolete.
    """

    code = "TRT404"
    reads = frozenset({"cmake_functions", "files", "globs", "make_sources", "targets", "test_cases", "test_entries"})
    name = "unregistered-cpp-unittest"
    family = "wiring"
    severity = Severity.WARNING

    VALID = [
        {
            "files": {
                "CMakeLists.txt": "file(GLOB_RECURSE UT_SRCS unittests/*.cpp unittests/*.cu)\nadd_executable(unitTest ${UT_SRCS})\ntarget_link_libraries(unitTest PRIVATE gtest gtest_main)\n",
                "unittests/ropeTests.cpp": _TEST_CPP,
                "unittests/kernels/attnTests.cu": _TEST_CPP.replace("Rope", "Attn"),
            }
        },
        {
            # an explicit list in a subdirectory, registered with gtest_discover_tests
            "files": {
                "CMakeLists.txt": "add_subdirectory(samples/common)\n",
                "samples/common/CMakeLists.txt": "add_executable(common_test half.test.cpp)\ngtest_discover_tests(common_test)\n",
                "samples/common/half.test.cpp": _TEST_CPP,
            }
        },
    ]
    VALID += [
        {
            # a Bazel package (Torch-TensorRT's tests/cpp): cc_test targets, not CMake, build it
            "files": {
                "CMakeLists.txt": "add_library(core core.cpp)\n",
                "tests/cpp/BUILD": 'cc_test(name = "test_serialization", srcs = ["test_serialization.cpp"])\n',
                "tests/cpp/test_serialization.cpp": _TEST_CPP,
            }
        },
        {
            # a build system's command that makes and registers a googletest at once (catkin_add_gtest,
            # ament_add_gtest), and a test linked with googletest through FindGTest's variable
            "files": {
                "CMakeLists.txt": "catkin_add_gtest(test_pose test/test_pose.cpp)\n"
                "add_executable(test_frame test/test_frame.cpp)\ntarget_link_libraries(test_frame ${GTEST_LIBRARIES})\n",
                "test/test_pose.cpp": _TEST_CPP,
                "test/test_frame.cpp": _TEST_CPP.replace("Rope", "Frame"),
            }
        },
        {
            # ROS 2: ament_cmake_ros's isolated gtest/gmock, and a list file's own function that makes a
            # googletest of the file its caller passes
            "files": {
                "CMakeLists.txt": "project(filters)\nament_add_ros_isolated_gtest(test_${PROJECT_NAME} test/test_${PROJECT_NAME}.cpp)\n"
                "function(add_testcase filepath)\n  get_filename_component(n ${filepath} NAME_WE)\n"
                "  ament_add_gmock(${n} ${filepath})\nendfunction()\n"
                "if(BUILD_TESTING)\n  add_testcase(test/test_bias.cpp)\nendif()\n",
                "test/test_filters.cpp": _TEST_CPP,
                "test/test_bias.cpp": _TEST_CPP.replace("Rope", "Bias"),
            }
        },
        {
            # a test-making function reached through another (cmake_parse_arguments' results), called in a
            # foreach over a glob
            "files": {
                "tests/CMakeLists.txt": "function(cc_test_build NAME)\n"
                "  cmake_parse_arguments(cc_test \"\" \"\" \"SRCS;DEPS\" ${ARGN})\n"
                "  add_executable(${NAME} ${cc_test_SRCS})\n  target_link_libraries(${NAME} gtest)\nendfunction()\n"
                "function(add_unittest CC_FILE)\n  set(F ${CC_FILE})\n  cc_test_build(t SRCS ${F})\nendfunction()\n"
                "file(GLOB_RECURSE ALL_TEST_SRCS ${CMAKE_CURRENT_SOURCE_DIR}/*/test_*.cc)\n"
                "foreach(_CC_FILE ${ALL_TEST_SRCS})\n  add_unittest(${_CC_FILE})\nendforeach()\n",
                "tests/core/test_tensor.cc": _TEST_CPP,
            }
        },
        {
            # a code generator's template (its placeholders replaced in each copy it writes, which a target builds)
            "files": {
                "CMakeLists.txt": "add_executable(t tests/TestOpFlip.cpp)\nadd_test(NAME t COMMAND t)\n",
                "tests/TestOpFlip.cpp": _TEST_CPP.replace("Rope", "OpFlip"),
                "tools/mkop/CppTest.cpp": _TEST_CPP.replace("Rope", "Op__OPNAME__").replace("Cache", "__OPNAME___sanity"),
            }
        },
        {
            # a parent list file's macro registering the target its caller names (add_test on a parameter), called
            # in a subdirectory after the target is made there
            "files": {
                "tests/CMakeLists.txt": "macro(nvcv_add_test TESTCMD TESTGROUP)\n"
                "  get_filename_component(TESTNAME \"${TESTCMD}\" NAME)\n"
                "  add_test(NAME \"${TESTNAME}\" COMMAND \"${TESTCMD}\")\nendmacro()\nadd_subdirectory(system)\n",
                "tests/system/CMakeLists.txt": "add_executable(op_test_system TestOpFlip.cpp)\n"
                "nvcv_add_test(op_test_system ops)\n",
                "tests/system/TestOpFlip.cpp": _TEST_CPP,
            }
        },
    ]
    INVALID = [
        {
            # a call of a function that makes a library, defined in a parent list file, registers no test
            "files": {
                "CMakeLists.txt": "function(add_test_library NAME)\n  add_library(${NAME} ${ARGN})\nendfunction()\n"
                "add_subdirectory(t)\n",
                "t/CMakeLists.txt": "add_test_library(helpers test_helpers.cpp)\n",
                "t/test_helpers.cpp": _TEST_CPP,
            },
            "expect": [("t/test_helpers.cpp", 2, "no CMake test target builds test_helpers.cpp")],
        },
        {
            "files": {
                "CMakeLists.txt": "file(GLOB UT_SRCS unittests/*.cpp)\nadd_executable(unitTest ${UT_SRCS})\nadd_test(NAME unitTest COMMAND unitTest)\n",
                "unittests/ropeTests.cpp": _TEST_CPP,
                "unittests/kernels/attnTests.cpp": _TEST_CPP.replace("Rope", "Attn"),
                "unittests/batchTests.cu": "// kernels\n" + _TEST_CPP.replace("Rope", "Batch"),
            },
            "expect": [
                ("unittests/batchTests.cu", 3, "no CMake test target builds batchTests.cu"),
                ("unittests/kernels/attnTests.cpp", 2, "Attn.Cache"),
            ],
        },
        {
            # a function that makes a library of what it is given registers no test
            "files": {
                "CMakeLists.txt": "function(add_component src)\n  add_library(comp ${src})\nendfunction()\n"
                "add_component(test/test_bias.cpp)\nadd_executable(t other.cpp)\nadd_test(NAME t COMMAND t)\n",
                "test/test_bias.cpp": _TEST_CPP.replace("Rope", "Bias"),
            },
            "expect": [("test/test_bias.cpp", 2, "no CMake test target builds test_bias.cpp")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        cmake = [ff for ff in index.files.values() if ff.kind == "cmake"]
        if not cmake:
            return
        # join targets across list files (defined in one, registered as a test in another)
        sources: dict[str, set[str]] = {}
        tvars: dict[str, set[str]] = {}
        tested: set[str] = set()
        spans = {}
        # the functions list files define that make or register a test, called from other list files
        functions = {f.name: f.kind for ff in cmake for f in getattr(ff, "cmake_functions", ())}
        for ff in cmake:
            for t in ff.targets:
                if t.via is not None and t.via not in functions:
                    continue  # a call of a function no list file of the tree defines as making or registering a test
                sources.setdefault(t.name, set()).update(t.sources)
                tvars.setdefault(t.name, set()).update(t.vars)
                if t.test or t.via is not None:
                    tested.add(t.name)
                if t.span.line > 1 or t.name not in spans:
                    spans[t.name] = t.span
        globs = [g for ff in cmake for g in ff.globs]
        bazel: dict[str, bool] = {}
        for path, ff in sorted(index.files.items()):
            if ff.kind not in ("cpp", "cuda") or not ff.test_cases:
                continue
            if any(part.lower() in _VENDORED for part in path.split("/")[:-1]):
                continue
            if _bazel_package(index.root, path, bazel):
                continue  # built by Bazel (a BUILD file above it), not by CMake: not this rule's to judge
            if all(_PLACEHOLDER.search(f"{t.cls}.{t.name}") for t in ff.test_cases):
                continue  # a code generator's template (`TEST(Op__OPNAME__, ...)`): its copies are the tests
            matching = [g for g in globs if any(glob_matches(p, g.recurse, path) for p in g.patterns)]
            built_by = [
                t
                for t in sorted(tested)
                if path in sources.get(t, ()) or any(g.var in tvars.get(t, ()) or t in g.targets for g in matching)
            ]
            if built_by:
                continue
            first = ff.test_cases[0]
            name = path.rsplit("/", 1)[-1]
            shown = ", ".join(f"{t.cls}.{t.name}" for t in ff.test_cases[:3])
            more = f" and {len(ff.test_cases) - 3} more" if len(ff.test_cases) > 3 else ""
            related = []
            near = [g for g in globs if any(p.rsplit("/", 1)[0] and path.startswith(p.rsplit("/", 1)[0] + "/") for p in g.patterns)]
            for g in near[:1]:
                related.append(Related(g.span, f"file({'GLOB_RECURSE' if g.recurse else 'GLOB'} {g.var} {' '.join(g.patterns)}) does not match it"))
            yield self.diag(
                first.span,
                f"no CMake test target builds {name}: its googletest cases ({shown}{more}) never run; add it to a "
                f"test target's sources ({_nearest(path, tested, spans)})",
                related=related,
                symbol=path,
            )


def _bazel_package(root, path: str, memo: dict[str, bool]) -> bool:
    d = path.rsplit("/", 1)[0] if "/" in path else ""
    chain = []
    found = False
    while True:
        if d in memo:
            found = memo[d]
            break
        chain.append(d)
        base = root / d if d else root
        if (base / "BUILD").is_file() or (base / "BUILD.bazel").is_file():
            found = True
            break
        if not d:
            break
        d = d.rsplit("/", 1)[0] if "/" in d else ""
    for c in chain:
        memo[c] = found
    return found


def _nearest(path: str, tested: set[str], spans) -> str:
    """The test targets to name in the message: those defined nearest the file (the deepest list-file
    directory above it first), at most three; names CMake computes (``${name}``, ``$<TARGET_FILE:...>``) left
    out."""
    names = [t for t in tested if "$" not in t]
    if not names:
        return "none is registered with add_test/gtest_discover_tests"

    def depth(t: str) -> int:
        d = spans[t].path.rsplit("/", 1)[0] if t in spans and "/" in spans[t].path else ""
        return len(d.split("/")) if d and path.startswith(d + "/") else 0 if not d else -1

    ranked = sorted(names, key=lambda t: (-depth(t), t))
    more = f" and {len(ranked) - 3} more" if len(ranked) > 3 else ""
    return ", ".join(ranked[:3]) + more
