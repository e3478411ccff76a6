from __future__ import annotations

import re
from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule
from ..examples.plugin import plugin_class

_GODT = """    int32_t getOutputDataTypes(DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes,
        int32_t nbInputs) const noexcept override
    {{
{body}
        return 0;
    }}"""

_FLAG_CALL = re.compile(r"(?:^|::)(?:getFlag|getFlags|platformHasFast\w+)$")


class OutputDtypeFromBuilderFlags(Rule):
    """`getOutputDataTypes` picks output types from builder precision flags instead of inputs or attributes.

    ## What it does
    Reports builder precision state named in a plugin's `getOutputDataTypes` (V3) or `getOutputDataType`
    (V2): `BuilderFlag::kFP16`/`kBF16`/`kINT8`/..., `IBuilderConfig::getFlag(s)`, `platformHasFast*`, in
    its body or in the project functions it calls (up to `max-call-depth`).

    ## Why it matters
    Builder flags say which precisions TensorRT *may* choose; they are not the tensor types. TensorRT
    calls `getOutputDataTypes` with the input types and expects outputs derived from them (or from the
    plugin's attributes). An output type taken from a flag disagrees with the inputs whenever the flag and
    the network differ (strongly typed networks, where flags are ignored; a layer kept in FP32), and the
    engine fails to build or converts silently; the same plugin gives different engines on different
    machines.

    ## Example
    ```cpp
    outputTypes[0] = gFlags & (1U << int(BuilderFlag::kFP16)) ? DataType::kHALF : DataType::kFLOAT;
    ```

    ## Fix
    Derive output types from `inputTypes` (`outputTypes[0] = inputTypes[0];`) or from a plugin attribute
    (an `out_dtype` field), and let `supportsFormatCombination` accept the precisions the kernel has.
    """

    code = "TRT206"
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "lifecycle", "py_creators", "registrations"})
    name = "output-dtype-from-builder-flags"
    family = "plugin"

    VALID = [
        {"files": {"plugins/foo.cpp": plugin_class(_GODT.format(body="        outputTypes[0] = inputTypes[0];"))}},
    ]
    INVALID = [
        {
            "files": {
                "plugins/foo.cpp": (
                    "extern unsigned gBuilderFlags;\n"
                    + plugin_class(_GODT.format(
                        body="        bool const half = gBuilderFlags & (1U << static_cast<unsigned>(BuilderFlag::kFP16));\n"
                        "        outputTypes[0] = half ? DataType::kHALF : DataType::kFLOAT;"))
                )
            },
            "expect": [("plugins/foo.cpp", 12, "FooPlugin::getOutputDataTypes chooses output types from builder precision state (BuilderFlag::kFP16)")],
        },
        {
            "files": {
                "plugins/foo.cpp": (
                    "#include <NvInfer.h>\nnvinfer1::IBuilderConfig* gConfig = nullptr;\n"
                    "static bool preferHalf() { return gConfig->getFlag(nvinfer1::BuilderFlag::kFP16); }\n"
                    + plugin_class(_GODT.format(
                        body="        outputTypes[0] = preferHalf() ? DataType::kHALF : inputTypes[0];"))
                )
            },
            "expect": [("plugins/foo.cpp", 3, "FooPlugin::getOutputDataTypes chooses output types from builder precision state (getFlag, via FooPlugin::getOutputDataTypes -> preferHalf)")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        seen = set()
        for info in index.plugins:
            for mname in ("getOutputDataTypes", "getOutputDataType"):
                for md in index.method_details(info.qualname, mname):
                    owner = md.qualname.split("::")[-2] if "::" in md.qualname else info.cls.name
                    for what, span in md.refs:
                        key = (span.path, span.line, span.col)
                        if key in seen:
                            continue
                        seen.add(key)
                        yield self.diag(
                            span,
                            f"{owner}::{mname} chooses output types from builder precision state ({what}); "
                            "output types must follow the input types or the plugin's attributes",
                            related=[Related(md.span, f"{owner}::{mname} is defined here")],
                            symbol=f"{md.qualname}:{what}",
                        )
                for fn in index.find_method(info.qualname, mname):
                    for call, chain in index.walk_calls(fn):
                        if len(chain) < 2 or not _FLAG_CALL.search(call.callee.split("<")[0]):
                            continue
                        key = (call.span.path, call.span.line, call.span.col)
                        if key in seen:
                            continue
                        seen.add(key)
                        owner = fn.qualname.split("::")[-2] if "::" in fn.qualname else info.cls.name
                        path = " -> ".join([f"{owner}::{mname}"] + [c.qualname for c in chain[1:]])
                        short = call.callee.split("::")[-1]
                        yield self.diag(
                            call.span,
                            f"{owner}::{mname} chooses output types from builder precision state ({short}, via {path}); "
                            "output types must follow the input types or the plugin's attributes",
                            related=[Related(fn.span, f"{owner}::{mname} is defined here")],
                            symbol=f"{fn.qualname}:{short}",
                        )
