from __future__ import annotations

import fnmatch
import posixpath
from functools import lru_cache
from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule

_CMAKE = 'file(GLOB_RECURSE PLUGIN_CPP_SRCS "plugins/*.cpp")\nadd_library(plugins SHARED ${PLUGIN_CPP_SRCS})\n'


@lru_cache(maxsize=4096)
def _glob_base(pattern: str) -> tuple[str, str]:
    """Split a resolved glob into (directory without wildcards, the rest)."""
    parts = pattern.split("/")
    base = []
    for p in parts:
        if any(ch in p for ch in "*?["):
            break
        base.append(p)
    return "/".join(base), "/".join(parts[len(base):])


def glob_matches(pattern: str, recurse: bool, path: str) -> bool:
    base, rest = _glob_base(pattern)
    if base and not (path == base or path.startswith(base + "/")):
        return False
    sub = path[len(base) + 1 :] if base else path
    if not rest:
        return sub == ""
    if recurse:
        # GLOB_RECURSE: the last component's pattern is matched in every subdirectory
        return fnmatch.fnmatchcase(posixpath.basename(sub), posixpath.basename(rest)) and (
            posixpath.dirname(rest) in ("", "*", "**") or fnmatch.fnmatchcase(posixpath.dirname(sub), posixpath.dirname(rest) + "*")
        )
    return fnmatch.fnmatchcase(sub, rest) and sub.count("/") == rest.count("/")


def covers_dir(pattern: str, recurse: bool, path: str) -> bool:
    """Whether the glob walks the directory ``path`` is in (whatever the file name)."""
    base, rest = _glob_base(pattern)
    d = posixpath.dirname(path)
    if base and not (d == base or d.startswith(base + "/")):
        return False
    if recurse:
        return True
    rest_dir = posixpath.dirname(rest)
    sub = d[len(base) + 1 :] if base and d != base else ("" if d == base else d)
    return fnmatch.fnmatchcase(sub, rest_dir) if rest_dir else sub == ""


class CudaSourceInPluginsDir(Rule):
    """A `.cu` file that its build never compiles: a CMake glob that walks its directory collects only other
    extensions, or the Makefile that builds its directory lists its sources and not this file.

    ## What it does
    Reads the project's CMake `file(GLOB|GLOB_RECURSE VAR ...)` calls and, for each `.cu` file, finds the
    globs that walk its directory. When such a glob exists but no glob anywhere matches the `.cu` file and
    no CMake file names it, the `.cu` is reported, with the glob that walks past it as the related
    location.

    For a directory built by its own Makefile (and in no CMake project's tree), the nearest Makefile at or
    above the `.cu` is read (never run): when it names its sources (variables, rule prerequisites, recipe
    command lines, `$(wildcard ...)` patterns, `x.o` objects built from `x.cu`) and none of them is this file,
    the `.cu` is reported with the Makefile's first source line as the related location. A source list make
    computes (`$(shell find ...)`) decides nothing.

    ## Why it matters
    A plugin's kernels in a `.cu` next to its `.cpp`, under `file(GLOB_RECURSE ... "plugins/*.cpp")`, are
    silently not compiled. The build succeeds when nothing references the kernel yet, or fails much later
    with an undefined symbol at link or load time, on another machine.

    ## Example
    ```cmake
    file(GLOB_RECURSE PLUGIN_CPP_SRCS "plugins/*.cpp")   # plugins/foo/fooKernel.cu is never built
    ```

    ## Fix
    Add a `.cu` glob for that directory (`file(GLOB_RECURSE PLUGIN_CU_SRCS "plugins/*.cu")`) to the same
    target, or move the kernel where a `.cu` glob collects it.
    """

    code = "TRT401"
    reads = None  # also reads the CMake files' text from disk: run on every check
    name = "cuda-source-in-plugins-dir"
    family = "wiring"
    confirm = "library-symbols"

    VALID = [
        {
            "files": {
                "cpp/CMakeLists.txt": _CMAKE + 'file(GLOB_RECURSE PLUGIN_CU_SRCS "plugins/*.cu")\ntarget_sources(plugins PRIVATE ${PLUGIN_CU_SRCS})\n',
                "cpp/plugins/foo/fooKernel.cu": "__global__ void k() {}\n",
                "cpp/plugins/foo/fooPlugin.cpp": "int x;\n",
            }
        },
        {
            # a .cu outside every glob's directories is not this rule's business
            "files": {"cpp/CMakeLists.txt": _CMAKE, "tools/k.cu": "__global__ void k() {}\n"},
        },
        {
            # a googletest source left out of the glob is TRT404's (unregistered-cpp-unittest): one finding, not two
            "files": {
                "cpp/CMakeLists.txt": _CMAKE,
                "cpp/plugins/foo/fooKernelTest.cu": (
                    "#include <gtest/gtest.h>\n__global__ void k() {}\nTEST(FooKernel, Runs)\n{\n    k<<<1, 1>>>();\n}\n"),
                "cpp/plugins/foo/fooPlugin.cpp": "int x;\n",
            },
        },
    ]
    VALID += [
        {
            # the Makefile names the kernel among its sources
            "files": {
                "sample/Makefile": "SRCS = fooPlugin.cpp fooKernel.cu\nlibfoo.so: $(SRCS)\n\tnvcc -shared -o $@ $^\n",
                "sample/fooPlugin.cpp": "int x;\n",
                "sample/fooKernel.cu": "__global__ void k() {}\n",
            }
        },
        {
            # a $(wildcard) pattern, an object built from the .cu, a list make computes: each decides nothing wrong
            "files": {
                "a/Makefile": "lib.so: $(wildcard *.cu) main.cpp\n\tnvcc -shared -o $@ $^\n",
                "a/k.cu": "__global__ void k() {}\n",
                "a/main.cpp": "int x;\n",
                "b/Makefile": "OBJ = main.o objs/k.cu.o\nlib.so: $(OBJ)\n\tnvcc -shared -o $@ $^\nobjs/%.cu.o: ./%.cu\n\tnvcc -c $< -o $@\n",
                "b/k.cu": "__global__ void k() {}\n",
                "b/main.cpp": "int x;\n",
                "c/Makefile": "SRC = $(shell find . -name '*.cu')\nlib.so: $(SRC) main.cpp\n\tnvcc -shared -o $@ $^\n",
                "c/k.cu": "__global__ void k() {}\n",
                "c/main.cpp": "int x;\n",
            }
        },
        {
            # a Makefile inside a CMake project's tree is an alternative build: CMake's sources decide
            "files": {
                "CMakeLists.txt": "project(p)\nadd_library(p SHARED lib/main.cpp lib/k.cu)\n",
                "lib/Makefile": "lib.so: main.cpp\n\tg++ -shared -o $@ $^\n",
                "lib/k.cu": "__global__ void k() {}\n",
                "lib/main.cpp": "int x;\n",
            }
        },
        {
            # a sample with its own project(): its ${PROJECT_SOURCE_DIR} is its own directory, not the tree's top,
            # so its *.cc glob says nothing of the library's kernels elsewhere
            "files": {
                "CMakeLists.txt": "project(lib)\nadd_library(lib lib/k.cu)\n",
                "lib/k.cu": "__global__ void k() {}\n",
                "third_party/eigen/test/gpu_basic.cu": "__global__ void op() {}\n",
                "examples/demo/CMakeLists.txt": "project(demo)\nfile(GLOB_RECURSE ALL_SRCS ${PROJECT_SOURCE_DIR}/*.cc)\nadd_executable(main ${ALL_SRCS})\n",
                "examples/demo/main.cc": "int main() { return 0; }\n",
            }
        },
    ]
    INVALID = [
        {
            # the kernel dropped from the Makefile's sources
            "files": {
                "sample/Makefile": "SRCS = fooPlugin.cpp\nlibfoo.so: $(SRCS)\n\tnvcc -shared -o $@ $^\n",
                "sample/fooPlugin.cpp": "int x;\n",
                "sample/fooKernel.cu": "__global__ void k() {}\n",
            },
            "expect": [("sample/fooKernel.cu", 1, "sample/Makefile")],
        },
        {
            "files": {
                "cpp/CMakeLists.txt": _CMAKE,
                "cpp/plugins/foo/fooKernel.cu": "__global__ void k() {}\n",
                "cpp/plugins/foo/fooPlugin.cpp": "int x;\n",
            },
            "expect": [("cpp/plugins/foo/fooKernel.cu", 1, "PLUGIN_CPP_SRCS")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        yield from self._globs(index)
        yield from self._makefiles(index)

    def _makefiles(self, index) -> Iterable[Diagnostic]:
        makes = {posixpath.dirname(p): (p, ff.make_sources[0]) for p, ff in index.files.items()
                 if ff.kind == "makefile" and ff.make_sources}
        if not makes:
            return
        cmake_dirs = {posixpath.dirname(p) for p, ff in index.files.items() if ff.kind == "cmake"
                      and posixpath.basename(p) == "CMakeLists.txt"}
        for path, ff in sorted(index.files.items()):
            if ff.kind != "cuda" or ff.test_cases:
                continue
            d = posixpath.dirname(path)
            owner, in_cmake = None, False
            while True:
                in_cmake = in_cmake or d in cmake_dirs
                if owner is None and d in makes:
                    owner = makes[d]
                if not d:
                    break
                d = posixpath.dirname(d)
            if owner is None or in_cmake:
                continue  # in a CMake project's tree, CMake's lists decide (the glob check above)
            mk_path, ms = owner
            if not ms.known or path in ms.sources or _stem(path) in {_stem(o) for o in ms.objects}:
                continue  # an object file of the same name (x.o, objs/x.cu.o through a pattern rule) builds it
            if any(fnmatch.fnmatchcase(path, p) and path.count("/") == p.count("/") for p in ms.patterns):
                continue
            name = posixpath.basename(path)
            yield self.diag(
                _file_span(path),
                f"{name} is never compiled: the Makefile {mk_path} that builds this directory names its sources "
                f"and not this .cu file",
                related=[Related(ms.span, "the Makefile names its sources here")],
                symbol=path,
            )

    def _globs(self, index) -> Iterable[Diagnostic]:
        if not index.globs:
            return
        cmake_text = None
        for path, ff in sorted(index.files.items()):
            if ff.kind != "cuda" or ff.test_cases:
                continue  # a googletest source is TRT404's (unregistered-cpp-unittest)
            if any(glob_matches(p, g.recurse, path) for g in index.globs for p in g.patterns):
                continue
            walking = [(g, p) for g in index.globs for p in g.patterns if covers_dir(p, g.recurse, path)]
            if not walking:
                continue
            if cmake_text is None:
                cmake_text = []
                for cp, cf in index.files.items():
                    if cf.kind == "cmake":
                        try:
                            cmake_text.append((index.root / cp).read_text(encoding="utf-8", errors="replace"))
                        except OSError:
                            pass
            name = posixpath.basename(path)
            if any(name in t for t in cmake_text):
                continue  # listed explicitly somewhere
            g, p = walking[0]
            tgt = f" (target {', '.join(g.targets)})" if g.targets else ""
            yield self.diag(
                _file_span(path),
                f"{name} is never compiled: the CMake glob {g.var}{tgt} walks this directory but collects only "
                f"'{p}', and no other glob or list names this .cu file",
                related=[Related(g.span, f"file({'GLOB_RECURSE' if g.recurse else 'GLOB'} {g.var} \"{p}\") walks this directory")],
                symbol=path,
            )


def _stem(path: str) -> str:
    """``a/b/x.cu`` -> ``x``; ``objs/x.cu.o`` -> ``x``; ``x.o`` -> ``x``."""
    name = posixpath.basename(path)
    if name.endswith(".o"):
        name = name[:-2]
    return posixpath.splitext(name)[0] if name.lower().endswith((".cu", ".cpp", ".cc", ".cxx", ".c")) else name


def _file_span(path: str):
    from trtlint.base.facts import Span

    return Span(path, 1, 1, 1, 1)
