from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule
from ..examples.plugin import plugin_class

_ENQ = """    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
"""


class EnqueueBoolReturn(Rule):
    """`true`/`false` (or a bool expression) returned from an `int32_t` status method.

    ## What it does
    In the plugin methods that return an `int32_t` status by the TensorRT interface (the methods marked
    `returns: status` in rules/tensorrt_interfaces.yaml: `enqueue`, V3 `configurePlugin`,
    `getOutputDataTypes`, `getOutputShapes`, `onShapeChange`, `setTactic`, V2 `initialize`), reports each
    `return` of a `bool` literal, or of a call to a function returning `bool`. Other bool expressions
    (`return cudaGetLastError() != cudaSuccess;`) are left alone: their polarity is the author's.

    ## Why it matters
    TensorRT reads 0 as success and anything else as failure. `return false;` on an error path converts to 0,
    so TensorRT carries on with garbage outputs; `return true;` on success converts to 1, so every call
    fails. A helper that returns `bool` (true = ok) passed straight through inverts the meaning the same way.

    ## Example
    ```cpp
    int32_t FooPlugin::enqueue(...) noexcept { if (!ok) { return false; } ... return true; }
    ```

    ## Fix
    Return `0` on success and a non-zero status (e.g. `-1` or `STATUS_FAILURE`) on failure; convert a bool
    helper's result explicitly: `return launch(...) ? 0 : -1;`.
    """

    code = "TRT210"
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "lifecycle", "py_creators", "registrations"})
    name = "enqueue-bool-return"
    family = "plugin"

    VALID = [
        {"files": {"plugins/foo.cpp": plugin_class(_ENQ + "        return inputs == nullptr ? -1 : 0;\n    }\n"
                                                   "    bool supportsFormatCombination(int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs,\n"
                                                   "        int32_t nbOutputs) noexcept override { return true; }")}},
        # TensorRT OSS resizeNearestPlugin: a comparison whose true means failure is a correct status
        {"files": {"plugins/foo.cpp": plugin_class(_ENQ + "        return cudaGetLastError() != cudaSuccess;\n    }")}},
    ]
    INVALID = [
        {
            "files": {
                "plugins/foo.cpp": plugin_class(
                    _ENQ + "        if (inputs == nullptr)\n        {\n            return false;\n        }\n        return 0;\n    }"
                )
            },
            "expect": [("plugins/foo.cpp", 13, "FooPlugin::enqueue returns `false` from an int32_t status method: false converts to 0, which TensorRT reads as success")],
        },
        {
            "files": {
                "plugins/foo.cpp": plugin_class(
                    "    bool launch(void* const* outputs, cudaStream_t stream);\n"
                    + _ENQ + "        return launch(outputs, stream);\n    }"
                )
            },
            "expect": [("plugins/foo.cpp", 12, "FooPlugin::enqueue returns the bool `launch(outputs, stream)` as an int32_t status: true converts to 1, which TensorRT reads as failure")],
        },
        {
            # `return true;` on the success path: every call fails (the error path's `-1` is a correct status)
            "files": {
                "plugins/foo.cpp": plugin_class(
                    _ENQ + "        if (inputs == nullptr)\n        {\n            return -1;\n        }\n        return true;\n    }"
                )
            },
            "expect": [("plugins/foo.cpp", 15, "FooPlugin::enqueue returns `true` from an int32_t status method: true converts to 1, which TensorRT reads as failure")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        packs = index.packs
        for info in index.plugins:
            c = info.cls
            ifaces = [b for b in c.bases if b in packs.trt_interfaces]
            for md in sorted((m for q in index.ancestors(c.qualname) for m in index.lifecycle_by_cls.get(q, ())),
                             key=lambda m: (m.span.path, m.span.line)):
                m = next((packs.trt_method(b, md.name) for b in ifaces if packs.trt_method(b, md.name)), None)
                if m is None or m.returns != "status" or "bool" in md.return_type:
                    continue
                cls_name = md.qualname.split("::")[-2] if "::" in md.qualname else c.name
                for r in md.returns:
                    if r.kind not in ("bool", "boolcall"):
                        continue
                    if r.kind == "bool":
                        meaning = ("false converts to 0, which TensorRT reads as success" if r.value == "false"
                                   else "true converts to 1, which TensorRT reads as failure")
                        msg = f"{cls_name}::{md.name} returns `{r.value}` from an int32_t status method: {meaning}"
                    else:
                        msg = (f"{cls_name}::{md.name} returns the bool `{r.expr}` as an int32_t status: true converts "
                               "to 1, which TensorRT reads as failure, and false to 0 (success)")
                    yield self.diag(r.span, msg, symbol=md.qualname,
                                    related=[Related(md.span, f"{cls_name}::{md.name} is defined here")])
