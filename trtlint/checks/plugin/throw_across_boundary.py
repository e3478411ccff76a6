from __future__ import annotations

from typing import Iterable

from ...diagnostics import Diagnostic, Related, Severity
from ..base import Rule
from ..examples.hotpath import plugin_cpp
from ..hotpath._walk import short
from ._escape import chain_text, escapes

_CHECK = """#include <stdexcept>
#define ELLM_CHECK(cond, msg) do { if (!(cond)) { throw std::runtime_error(msg); } } while (0)
static void checkShape(int n)
{
    ELLM_CHECK(n > 0, "empty input");
}"""

_TRY = """    try
    {
        checkShape(1);
    }
    catch (std::exception const& e)
    {
        return -1;
    }"""


class ThrowAcrossBoundary(Rule):
    """A throw that can leave a `noexcept` TensorRT interface method.

    ## What it does
    Follows the call graph from every `noexcept` method of a plugin or creator class (and their
    destructors) into project functions and macros, and reports what can throw on the way when no enclosing
    `try` block catches it: a `throw` expression, a throwing check macro (`ELLM_CHECK`, `CUDA_CHECK`,
    `PLUGIN_VALIDATE`, `PLUGIN_CUASSERT`, ...), a throwing library call (`.at()`, `std::stoi`,
    `std::optional::value`) or a project function listed as throwing. A `try` at any level above the throw
    (in the interface method itself or in any function on the way) clears it. Which macros and functions
    throw is data: the `macros` and `functions` tables of the rules/ packs (`rules/cpp_behaviour.yaml`, with
    the TensorRT Edge-LLM and TensorRT OSS check macros); add your own with `rule-packs`. A throw expanded from
    a macro the packs do not know is reported at the macro's use, naming it. The project's own definition wins
    over the packs: a pack macro the project defines visibly, whose expansion does something else (a
    `CUDA_CHECK` that calls `assert(0)` where the pack says it throws), is judged by what it expands to, and
    the finding names the definition.

    ## Why it matters
    Every TensorRT plugin interface method is `noexcept`: an exception that reaches its boundary calls
    `std::terminate` and ends the whole process (the inference server, not just the request), instead of the
    error status TensorRT knows how to handle.

    ## Example
    ```cpp
    int32_t FooPlugin::enqueue(...) noexcept
    {
        ELLM_CHECK(inputDesc[0].dims.nbDims == 3, "rank");   // throws std::runtime_error
        ...
    }
    ```

    ## Fix
    Wrap the body of the interface method in `try { ... } catch (std::exception const& e) { log; return -1; }`
    (or return `nullptr` / do nothing, as the method's contract says), or use a check that returns a status
    (`PLUGIN_CHECK_CUDA`, `ASSERT_FAILURE`).
    """

    code = "TRT204"
    name = "throw-across-boundary"
    family = "plugin"
    severity = Severity.ERROR

    VALID = [
        {"files": {"plugins/foo.cpp": plugin_cpp(_TRY, _CHECK)}},
        {"files": {"plugins/foo.cpp": plugin_cpp("    if (!inputs[0])\n    {\n        return -1;\n    }", "#include <stdexcept>")}},
    ]
    INVALID = [
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    checkShape(1);", _CHECK)},
            "expect": [(
                "plugins/foo.cpp", 9,
                "ELLM_CHECK (throws std::runtime_error when the condition is false) can throw out of noexcept "
                "FooPlugin::enqueue",
            )],
        },
        {
            "files": {"plugins/foo.cpp": plugin_cpp('    throw std::runtime_error("unsupported");', "#include <stdexcept>")},
            "expect": [("plugins/foo.cpp", 15, "`throw std::runtime_error` can throw out of noexcept FooPlugin::enqueue")],
        },
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    std::vector<int> v{1};\n    int x = v.at(2);", "#include <stdexcept>")},
            "expect": [("plugins/foo.cpp", 16, "std::vector::at (throws std::out_of_range)")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        for esc in escapes(index, "throw", honour_try=True, noexcept_only=True):
            call = esc.call
            if call.kind == "throw":
                thrown = call.args[0] if call.args else ""
                what = "`throw;` (a rethrow)" if thrown in ("", "(rethrow)") else f"`throw {thrown}`"
                if esc.in_macro:
                    what += f" (expanded from macro {esc.in_macro})"
                last = "throw"
            else:
                what = f"{call.callee} ({esc.behaviour.what})"
                last = call.callee
            method = f"{esc.entry.plugin}::{esc.entry.fn.name}"
            sev = Severity(esc.behaviour.severity) if esc.behaviour is not None and esc.behaviour.severity else None
            yield self.diag(
                call.span,
                f"{what} can throw out of noexcept {method}, and an exception leaving it calls std::terminate: "
                f"{chain_text(esc, last)}; no try/catch on the way",
                related=[Related(esc.entry.fn.span, f"{method} is noexcept")]
                + [Related(f.span, f"via {short(f)}") for f in esc.chain[1:]],
                symbol=f"{esc.entry.plugin}:{last}:{short(esc.chain[-1])}",
                severity=sev,
            )
