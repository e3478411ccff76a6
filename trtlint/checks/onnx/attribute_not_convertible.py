from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule
from ..examples.contract import creator_cpp
from ..examples.onnx import onnx_model, onnx_node
from ._nodes import RESERVED, group, known_creators, matches, plugin_nodes, where

# attribute types TensorRT's ONNX parser cannot turn into a PluginField (loadFields: kUNSUPPORTED_NODE)
UNSUPPORTED_TYPES = {"UNDEFINED", "GRAPH", "GRAPHS", "TENSORS", "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"}
# TENSOR attribute data types it converts (to kFLOAT32, kINT8, kINT16, kINT32, kCHAR, kFLOAT16, kBF16, kFLOAT64)
TENSOR_TYPES = {"FLOAT", "INT8", "INT16", "INT32", "STRING", "FLOAT16", "BFLOAT16", "DOUBLE"}


def _wrap32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


class AttributeNotConvertible(Rule):
    """A plugin node attribute TensorRT's ONNX parser cannot convert to a plugin field, or an INT outside int32.

    ## What it does
    For every ONNX model node the parser hands to a plugin creator it finds (the project's, a TensorRT OSS
    plugin spec's, TensorRT's own library's), looks at the attributes it would pass on (the fields the creator
    declares; every attribute when the creator's fields are not known) the way
    onnx-tensorrt's `loadFields` does: GRAPH, TENSORS, SPARSE_TENSOR, TYPE_PROTO (and list) attributes are
    rejected, TENSOR attributes only of the types FLOAT, INT8, INT16, INT32, STRING, FLOAT16, BFLOAT16 and
    DOUBLE are converted (INT64, BOOL, UINT8, ... are rejected), and INT/INTS values are narrowed to int32.
    Reports rejected attributes and INT values outside the int32 range (with the value the plugin gets).

    ## Why it matters
    A rejected attribute fails the parse with "unsupported as plugin fields"; an INT64 value such as
    `2**31` or a `sys.maxsize` sentinel silently becomes a different number in the plugin.

    ## Example
    A node `FooPlugin(max_len=4294967296)` (INT attribute): the plugin reads `0`.

    ## Fix
    Keep INT attributes within int32, export INT64 tensors as INT32, and pass graphs or tensor lists some
    other way (e.g. as inputs).
    """

    code = "TRT504"
    reads = frozenset({"classes", "emissions", "files", "functions", "models", "plugin_specs", "py_creators",
                        "registrations"})
    name = "attribute-not-convertible"
    family = "onnx"
    applies_to_tests = False  # a test's stub or fake-op model is not a route (docs/configuration.md)

    VALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("n", "kINT32"), ("w", "kINT32"))),
                "models/foo.onnx": onnx_model(
                    onnx_node("FooPlugin", "trt_plugins", n=2**31 - 1, w=("TENSOR", "INT32", (4,)), unused=2**40),
                    opsets=(("", 17), ("trt_plugins", 1)),
                ),
            }
        },
        {
            # no creator answers the node: the parser stops before the fields (TensorRT OSS onnx-graphsurgeon's
            # nested_dup_names.onnx has a default-domain 'Nested' node with a GRAPH attribute)
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "models/nested.onnx": onnx_model(onnx_node("Nested", big=2**40), opsets=(("", 11),)),
            }
        },
    ]
    INVALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("n", "kINT32"), ("w", "kINT32"))),
                "models/foo.onnx": onnx_model(
                    onnx_node("FooPlugin", "trt_plugins", n=2**32, w=("TENSOR", "INT64", (4,))),
                    opsets=(("", 17), ("trt_plugins", 1)),
                ),
            },
            "expect": [
                ("models/foo.onnx", 1, "attribute 'n' (INT) holds 4294967296, outside int32: TensorRT's ONNX parser narrows it to int32 and the plugin gets 0"),
                ("models/foo.onnx", 1, "attribute 'w' is a TENSOR of INT64, which TensorRT's ONNX parser cannot pass as a plugin field"),
            ],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        known = known_creators(index)
        found = []
        for m, n in plugin_nodes(index):
            if n.standard:
                continue
            hit = matches(n, known.get(n.op_type, []))
            if not hit:
                continue  # the parser stops before the fields: TRT101/TRT102/TRT501/TRT502 say why
            fields = [f for k in hit if k.fields is not None for f in k.fields]
            declared = {f.name for f in fields} if fields else None
            for a in n.attrs:
                if a.name in RESERVED or a.ref_attr_name or (declared is not None and a.name not in declared):
                    continue
                if a.type in UNSUPPORTED_TYPES or a.type.startswith("UNKNOWN"):
                    why = f"attribute '{a.name}' is of type {a.type}, which TensorRT's ONNX parser rejects as a plugin field (parsing fails)"
                elif a.type == "TENSOR" and a.tensor_type not in TENSOR_TYPES:
                    why = (
                        f"attribute '{a.name}' is a TENSOR of {a.tensor_type}, which TensorRT's ONNX parser cannot pass as a "
                        "plugin field (FLOAT, INT8, INT16, INT32, STRING, FLOAT16, BFLOAT16, DOUBLE only)"
                    )
                elif a.int_overflow:
                    v = a.int_overflow[0]
                    why = (
                        f"attribute '{a.name}' ({a.type}) holds {v}, outside int32: TensorRT's ONNX parser narrows it to "
                        f"int32 and the plugin gets {_wrap32(v)}"
                    )
                else:
                    continue
                decl = next((f for f in fields if f.name == a.name), None)
                as_type = f"as {decl.type}" if decl and decl.type else "by its name only (no PluginFieldType)"
                related = [Related(decl.span, f"'{a.name}' is declared here {as_type}")] if decl else []
                found.append((m, n, a.name, why, related))
        for _key, items in group(found, key=lambda it: (it[0].span.path, it[1].op_type, it[1].domain, it[2], it[3])):
            m, n, name, why, related = items[0]
            yield self.diag(n.span, f"{where([it[1] for it in items])}: {why}", related=related, symbol=f"{n.op_type}.{name}", logical=n.logical)
