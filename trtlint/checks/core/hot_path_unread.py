from __future__ import annotations

import re
from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from ..base import Rule
from ..examples.hotpath import plugin_cpp
from ..hotpath._walk import is_error_path, reachable, short

_OPERATOR = re.compile(r"(?:^|::)operator\W")  # a project's `operator<<` for its log stream, `operator[]`...
_UTIL_H = "#pragma once\n#include <cstddef>\nsize_t elementSize(int type);\n"
_USE = "    size_t bytes = elementSize(0) * 16;\n    cudaMemsetAsync(outputs[0], 0, bytes, stream);"


class HotPathUnread(Rule):
    """A function `enqueue` calls is the project's, but its body is in no file analysed with the plugin.

    ## What it does
    Follows the call graph from every plugin's `enqueue` (as TRT301-TRT303 do) and notes, once per plugin, the
    functions it reaches that the project declares (in one of its own headers) but whose body is in no source
    file of the plugin's program that was analysed: a `.cpp` the build of that program does not list, a file
    of another program, a unit that could not be parsed, code under an `#if` the build does not take. Calls of
    virtual methods, of operators and of the CUDA and C++ libraries are not such functions, nor is a name the
    project defines as several overloads (the call is not matched to one of them, but their bodies are read).
    The note names each function, the header that declares it, and the call sites.

    ## Why it matters
    The hot-path rules report an allocation, a synchronization or a launch on the default stream only where
    they can read it. A helper whose body they cannot read may do any of these on every inference; without
    this note, "All checks passed" would not say that part of `enqueue` was never looked at.

    ## Example
    ```cpp
    size_t elementSize(DataType t);          // util.h; util.cpp is not compiled with the plugin
    size_t bytes = elementSize(type) * n;    // in enqueue
    ```

    ## Fix
    Make the file that defines the function part of the plugin's program as its build compiles it (its
    CMake target, Makefile or `compile_commands.json`), or give the include directories that let it parse
    (`include-dirs`). A function defined in a prebuilt library is out of reach: nothing to do.
    """

    code = "TRT005"
    reads = frozenset({"classes", "files", "functions", "lifecycle", "py_creators", "registrations"})
    name = "hot-path-unread"
    family = "core"
    severity = Severity.INFO
    default = False
    opt_in_why = ("the hand triage of its first notes on the corpus found them false where the body is read by "
                  "another program's unit the lazy call-graph expansion picked instead (a same-named function in "
                  "another sample), so it says 'not checked' of a build that is fine; on by default once that "
                  "expansion resolves callees per program")

    VALID = [
        # the body is in a file of the program
        {"files": {"plugins/util.h": _UTIL_H,
                   "plugins/util.cpp": '#include "util.h"\nsize_t elementSize(int type)\n{\n    return type == 0 ? 4 : 2;\n}\n',
                   "plugins/foo.cpp": plugin_cpp(_USE, '#include "util.h"')}},
        # a virtual method is dispatched at run time: not a function whose body is missing
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    gRunner->run(stream);",
            "struct Runner\n{\n    virtual void run(cudaStream_t s) = 0;\n};\nextern Runner* gRunner;")}},
        # overloaded member templates defined in the header, and a project's operator<<: read, or no hot-path work
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    gView.at<float>(0);\n    gView << 1;",
            "struct View\n{\n    template <typename T>\n    T* at(int i) const { return nullptr; }\n"
            "    template <typename T, typename... A>\n    T* at(int i, A... rest) const { return nullptr; }\n"
            "    View& operator<<(int x);\n};\nextern View gView;")}},
        # a function the rule packs describe (rules/cpp_behaviour.yaml: TensorRT OSS's reportAssertion) is known
        # without its body: not unread
        {"files": {"plugins/check.h": "#pragma once\nnamespace nvinfer1 { namespace plugin {\n"
                                      "void reportAssertion(bool ok, char const* file, int line);\n} }\n",
                   "plugins/foo.cpp": plugin_cpp("    nvinfer1::plugin::reportAssertion(stream != nullptr, __FILE__, __LINE__);",
                                                 '#include "check.h"')}},
    ]
    INVALID = [
        {
            "files": {"plugins/util.h": _UTIL_H, "plugins/foo.cpp": plugin_cpp(_USE, '#include "util.h"')},
            "expect": [("plugins/foo.cpp", 12, "FooPlugin::enqueue calls elementSize (declared in plugins/util.h), "
                                               "whose body is in no file analysed with this plugin")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        packs = index.packs
        unread: dict[str, list] = {}  # plugin -> [(entry, call, chain)]
        for e, call, chain in reachable(index, ("hot",)):
            if (call.kind != "call" or not call.declared_in or is_error_path(call) or _OPERATOR.search(call.callee)
                    or index.resolve_call(call, chain[-1]) is not None
                    or index.functions_by_qualname.get(call.callee)  # defined, as overloads the call does not pick
                    or packs.lookup("allocating", call.callee) or packs.lookup("synchronizing", call.callee)
                    or packs.lookup("functions", call.callee)):  # the packs say what it does: nothing unread
                continue
            unread.setdefault(e.plugin, []).append((e, call, chain))
        for plugin, hits in unread.items():
            e = hits[0][0]
            names: dict[str, str] = {}
            for _e, call, _chain in hits:
                names.setdefault(call.callee, call.declared_in)
            listed = ", ".join(f"{short_name(n)} (declared in {p})" for n, p in names.items())
            yield self.diag(
                e.fn.span,
                f"{plugin}::{e.fn.name} calls {listed}, whose body is in no file analysed with this plugin: what "
                f"{'it does' if len(names) == 1 else 'they do'} on the hot path (allocations, synchronization, the "
                f"stream of launches) is not checked",
                related=[Related(call.span, f"called here, via {' -> '.join(short(f) for f in chain)}")
                         for _e, call, chain in hits],
                symbol=f"{plugin}:{','.join(sorted(names))}",
            )


def short_name(qualname: str) -> str:
    parts = qualname.split("::")
    return "::".join(parts[-2:]) if len(parts) > 2 else qualname
