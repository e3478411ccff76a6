from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Severity
from ..base import Rule
from ..examples.hotpath import plugin_cpp
from ._walk import hot_diag, hot_hits, once_note

# a helper that builds a host vector of the input's dimensions on every call
_SHAPE = """#include <vector>
static std::vector<int> dimsOf(int n)
{
    std::vector<int> d(n, 1);
    return d;
}"""

# size-query mode: with a null buffer the helper returns before its vector grows
_SCAN = """#include <vector>
static void scan(void* temp, size_t& bytes, cudaStream_t stream)
{
    if (!temp)
    {
        bytes = 256;
        return;
    }
    std::vector<void*> parts;
    parts.push_back(temp);
}"""


class EnqueueHostAllocation(Rule):
    """Host heap allocation or container growth reachable from `enqueue` (opt-in).

    ## What it does
    Like TRT301 enqueue-allocation, follows the call graph from every plugin's `enqueue` and reports calls in
    the `host_allocating` table of the rules/ packs: `new`, `malloc`, `std::make_unique`, `std::vector`
    growth (`push_back`, `resize`, ...) and construction with elements (`std::vector<float> v(n)`), map
    insertion. One-time guarded initialisation, size-query mode and calls reached only through a releasing
    destructor are not reported, as for TRT301; a helper several plugins reach is one finding naming them.

    ## Why it matters
    A host allocation in `enqueue` costs latency on every inference and is a failure point (`std::bad_alloc`
    across a `noexcept` boundary). Unlike a device allocation it does not break CUDA-graph capture, and most
    are small (shape vectors of a few elements): triage on real trees found them rarely worth a reviewer's
    time, so the rule is opt-in. Enable it to hunt latency in a plugin whose `enqueue` is on a tight budget.

    ## Example
    ```cpp
    int32_t FooPlugin::enqueue(...) noexcept { std::vector<float> scales(n); ... }
    ```

    ## Fix
    Keep the buffer as a member sized in `configurePlugin`/`onShapeChange`, or carve it from the workspace.
    """

    code = "TRT306"
    reads = frozenset({"classes", "files", "functions", "lifecycle", "py_creators", "registrations"})
    name = "enqueue-host-allocation"
    family = "hotpath"
    severity = Severity.WARNING
    default = False
    opt_in_why = ("host allocations do not break CUDA-graph capture and are mostly small shape vectors: triage on "
                  "FasterTransformer found 169 of 203 such findings not worth reading")

    VALID = [
        {"files": {"plugins/foo.cpp": plugin_cpp("    cudaMemsetAsync(outputs[0], 0, 16, stream);")}},
        # size-query mode: scan is only asked for its size (a null temp buffer); the vector after the return never
        # grows on this call
        {"files": {"plugins/foo.cpp": plugin_cpp("    size_t bytes = 0;\n    scan(nullptr, bytes, stream);", _SCAN)}},
    ]
    INVALID = [
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    std::vector<int> v;\n    v.push_back(1);")},
            "expect": [("plugins/foo.cpp", 16, "std::vector::push_back (container growth) allocates on the hot path of FooPlugin::enqueue")],
        },
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    std::vector<int> d = dimsOf(4);", _SHAPE)},
            "expect": [("plugins/foo.cpp", 8, "std::vector::vector (container construction (allocates its elements)) allocates on the hot path of FooPlugin::enqueue: FooPlugin::enqueue -> dimsOf -> std::vector::vector")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        for hit in hot_hits(index, "host_allocating"):
            if hit.temperature != "hot" or once_note(hit.call, hit.chain)[0] is not None:
                continue  # as TRT301: enqueue only, and not what runs once or only on release
            yield hot_diag(self, hit, "allocates", index)
