from __future__ import annotations

import re
from typing import Iterable, Optional

from trtlint.base.diagnostics import Diagnostic, Severity
from ..base import Rule
from ..examples.hotpath import plugin_cpp
from ._walk import is_error_path, reach_diag, reachable, short, where

_COPY = re.compile(r"^(?:cuda\w*Memcpy\w*Async|cuMemcpy\w*Async\w*)$")
_KINDS = {"stack": "a local variable on the stack", "vector": "a std::vector's heap buffer", "string": "a std::string's buffer"}


def host_sides(callee: str, args: tuple[str, ...]) -> Optional[tuple[int, ...]]:
    """The argument positions that are host memory for this copy (None: any position may be)."""
    direction = " ".join(args)
    src = 2 if ("2D" in callee or "3D" in callee) else 1
    if "DeviceToDevice" in direction or "DtoD" in callee:
        return ()
    if "HostToDevice" in direction or "HtoD" in callee:
        return (src,)
    if "DeviceToHost" in direction or "DtoH" in callee:
        return (0,)
    if "HostToHost" in direction:
        return (0, src)
    return None


class PageableAsyncCopy(Rule):
    """`cudaMemcpyAsync` to or from pageable host memory (the stack, a `std::vector`) in the hot path.

    ## What it does
    Follows the call graph from every plugin's hot methods (`enqueue`, V3 `setTactic`) and warm methods
    (at warning severity) and reports asynchronous copies whose host side is pageable memory the frontend
    can see: the address of a local variable or array (`&params`, `buf`), or the buffer of a `std::vector`
    / `std::string` (`v.data()`, `&v[0]`). The copy direction (`cudaMemcpyHostToDevice`, ...) decides which
    argument is the host side. Pinned memory (`cudaMallocHost`, `cudaHostAlloc`) is not reported.
    When TRT302 (a copy on the legacy default stream) or TRT304 (its status discarded) also applies to the same call, one finding
    is reported, this one, with a note "also TRT302" / "also TRT304".

    ## Why it matters
    An async copy from pageable memory is staged by the driver and synchronous with the host: the `enqueue`
    blocks, the copy does not overlap, and during CUDA-graph capture the call fails (pageable copies cannot be
    captured), so the engine cannot run in a graph.

    ## Example
    ```cpp
    Params p{n, scale};
    cudaMemcpyAsync(dParams, &p, sizeof(p), cudaMemcpyHostToDevice, stream);   // p is on the stack
    ```

    ## Fix
    Pass small parameters as kernel arguments, copy from pinned memory allocated once (`cudaMallocHost` in
    `configurePlugin`/`onShapeChange`), or prepare the data on the device.
    """

    code = "TRT305"
    reads = frozenset({"classes", "files", "functions", "lifecycle", "py_creators", "registrations"})
    name = "pageable-async-copy"
    family = "hotpath"
    supersedes = ("TRT302", "TRT304")
    severity = Severity.ERROR

    VALID = [
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    cudaMemcpyAsync(outputs[0], gPinned, 16, cudaMemcpyHostToDevice, stream);", "static float* gPinned;")}},
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    float buf[4];\n    cudaMemcpyAsync(buf, inputs[0], 16, cudaMemcpyHostToDevice, stream);")}},
    ]
    INVALID = [
        {
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    float params[4] = {1, 2, 3, 4};\n    cudaMemcpyAsync(outputs[0], params, 16, cudaMemcpyHostToDevice, stream);")},
            "expect": [("plugins/foo.cpp", 16, "cudaMemcpyAsync copies from pageable host memory (`params`, a local variable on the stack)")],
        },
        {
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    std::vector<float> host(4);\n    cudaMemcpyAsync(host.data(), inputs[0], 16, cudaMemcpyDeviceToHost, stream);")},
            "expect": [("plugins/foo.cpp", 16, "cudaMemcpyAsync copies to pageable host memory (`host`, a std::vector's heap buffer)")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        for e, call, chain in reachable(index, ("hot", "warm")):
            if call.kind != "call" or not call.mem_src or is_error_path(call):
                continue
            name = call.callee.split("::")[-1]
            if not _COPY.match(name):
                continue
            sides = host_sides(name, call.args)
            for i, src in enumerate(call.mem_src):
                if not src or (sides is not None and i not in sides):
                    continue
                kind, _, var = src.partition(":")
                direction = "to" if i == 0 else "from"
                yield reach_diag(
                    self, index, e, call, chain,
                    f"{call.callee} copies {direction} pageable host memory (`{var}`, {_KINDS.get(kind, kind)})",
                    f" {where(e.plugin, e.fn, e.temperature)}: the copy is synchronous with the host and cannot be "
                    "captured in a CUDA graph",
                    symbol=f"{e.plugin}:{call.callee}:{var}:{short(chain[-1])}",
                )
                break
