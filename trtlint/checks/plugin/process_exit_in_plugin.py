from __future__ import annotations

from typing import Iterable

from ...diagnostics import Diagnostic, Related, Severity
from ..base import Rule
from ..examples.hotpath import plugin_cpp
from ..hotpath._walk import short
from ._escape import chain_text, escapes

_ASSERT = """#include <cstdlib>
#define PLUGIN_ASSERT(a) do { if (!(a)) { abort(); } } while (0)
static void checkRank(int n)
{
    PLUGIN_ASSERT(n == 3);
}"""


class ProcessExitInPlugin(Rule):
    """`exit`, `abort` or an assert-and-exit macro reachable from a plugin or creator method.

    ## What it does
    Follows the call graph from every method of a plugin or creator class into project functions and macros,
    and reports calls that end the process: `exit`, `abort`, `std::terminate`, `quick_exit`, and macros and
    functions listed with behaviour `exit` in the rules/ packs (`PLUGIN_ASSERT`, `PLUGIN_FAIL`,
    `PLUGIN_CHECK` of TensorRT OSS; `assert`, at warning severity, since builds with `NDEBUG` drop it). A
    `try` block does not help here. Kernel launches are not followed (a device-side `assert` traps the
    kernel, it does not exit the process).

    ## Why it matters
    A plugin lives inside someone else's process: an inference server, a builder, a Python session. A failed
    check that exits or aborts takes all of it down, with no error status for TensorRT to report.

    ## Example
    ```cpp
    PLUGIN_ASSERT(nbInputs == 2);   // in configurePlugin: aborts the process when false
    ```

    ## Fix
    Report the failure through the method's status (return `-1`/`nullptr`, `PLUGIN_VALIDATE` inside a
    `try`, log with the plugin logger) instead of ending the process.
    """

    code = "TRT205"
    name = "process-exit-in-plugin"
    family = "plugin"
    severity = Severity.ERROR

    VALID = [
        {"files": {"plugins/foo.cpp": plugin_cpp("    if (!inputs[0])\n    {\n        return -1;\n    }", "#include <cstdlib>")}},
    ]
    INVALID = [
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    checkRank(2);", _ASSERT)},
            "expect": [(
                "plugins/foo.cpp", 9,
                "PLUGIN_ASSERT (aborts the process when the assertion fails (reportAssertion)) can end the process "
                "from FooPlugin::enqueue: FooPlugin::enqueue -> checkRank -> PLUGIN_ASSERT",
            )],
        },
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    if (!inputs[0])\n    {\n        exit(1);\n    }", "#include <cstdlib>")},
            "expect": [("plugins/foo.cpp", 17, "exit (ends the process) can end the process from FooPlugin::enqueue")],
        },
        {
            # a project macro no pack names (TensorRT OSS checkCudaErrors): the exit it expands to, at its use
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    checkCudaErrors(cudaGetLastError());",
                "#include <cstdlib>\n#define checkCudaErrors(e) do { if ((e) != cudaSuccess) { exit(1); } } while (0)")},
            "expect": [("plugins/foo.cpp", 16, "exit (ends the process) (expanded from macro checkCudaErrors) can end the process")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        for esc in escapes(index, "exit", honour_try=False, noexcept_only=False):
            call = esc.call
            method = f"{esc.entry.plugin}::{esc.entry.fn.name}"
            sev = Severity(esc.behaviour.severity) if esc.behaviour is not None and esc.behaviour.severity else None
            via = f" (expanded from macro {esc.in_macro})" if esc.in_macro else ""
            yield self.diag(
                call.span,
                f"{call.callee} ({esc.behaviour.what}){via} can end the process from {method}: "
                f"{chain_text(esc, call.callee)}",
                related=[Related(esc.entry.fn.span, f"{method} is defined here")]
                + [Related(f.span, f"via {short(f)}") for f in esc.chain[1:]],
                symbol=f"{esc.entry.plugin}:{call.callee}:{short(esc.chain[-1])}",
                severity=sev,
            )
