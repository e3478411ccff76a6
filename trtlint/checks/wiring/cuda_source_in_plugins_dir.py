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
    """A `.cu` file under a directory whose CMake glob collects only other extensions: it is not built.

    ## What it does
    Reads the project's CMake `file(GLOB|GLOB_RECURSE VAR ...)` calls and, for each `.cu` file, finds the
    globs that walk its directory. When such a glob exists but no glob anywhere matches the `.cu` file and
    no CMake file names it, the `.cu` is reported, with the glob that walks past it as the related
    location.

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
    INVALID = [
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


def _file_span(path: str):
    from trtlint.base.facts import Span

    return Span(path, 1, 1, 1, 1)
