from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic
from ..base import Rule
from ..examples.contract import creator_cpp
from ..examples.onnx import onnx_model, onnx_node
from ._nodes import group, known_creators, matches, plugin_nodes, where

SHAPE_INPUTS = "tensorrt_plugin_shape_input_indices"


class ReservedAttributeMisuse(Rule):
    """`plugin_version`, `plugin_namespace` or `tensorrt_plugin_shape_input_indices` of the wrong type or range.

    ## What it does
    Checks the attributes TensorRT's ONNX parser reserves on a plugin node: `plugin_version` and
    `plugin_namespace` must be STRING attributes (the parser reads the string field; an INT `plugin_version=2`
    reads as "" and asks for version ""), and `plugin_version` must not be empty;
    `tensorrt_plugin_shape_input_indices` must be INTS with every index in [-n, n-1] for a node with n inputs,
    without duplicates, and only on a node whose creator is an IPluginV3 one (the parser ignores it for V2
    creators).

    ## Why it matters
    A mistyped `plugin_version` makes the lookup fail with "plugin not found" although the creator exists; an
    out-of-range shape-input index fails the parse; on a V2 creator the shape inputs silently become ordinary
    inputs.

    ## Example
    `helper.make_node("FooPlugin", ["x"], ["y"], domain="trt_plugins", plugin_version=2)` (an INT).

    ## Fix
    Write `plugin_version="2"` / `plugin_namespace="ns"` as strings; keep shape-input indices within the
    node's inputs.
    """

    code = "TRT505"
    reads = frozenset({"classes", "emissions", "files", "functions", "models", "plugin_specs", "py_creators",
                        "registrations"})
    name = "reserved-attribute-misuse"
    family = "onnx"
    applies_to_tests = False  # a test's stub or fake-op model is not a route (docs/configuration.md)

    VALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", "2"),
                "models/foo.onnx": onnx_model(
                    onnx_node("FooPlugin", "trt_plugins", inputs=("x", "shape"), alpha=1.0, plugin_version="2", tensorrt_plugin_shape_input_indices=[1]),
                    opsets=(("", 17), ("trt_plugins", 1)),
                ),
            }
        },
    ]
    INVALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", "2"),
                "models/foo.onnx": onnx_model(
                    onnx_node("FooPlugin", "trt_plugins", inputs=("x", "shape"), alpha=1.0, plugin_version=2, tensorrt_plugin_shape_input_indices=[2]),
                    opsets=(("", 17), ("trt_plugins", 1)),
                ),
            },
            "expect": [
                ("models/foo.onnx", 1, "plugin_version is an INT attribute (2); TensorRT's ONNX parser reads it as a string and asks for version ''"),
                ("models/foo.onnx", 1, "tensorrt_plugin_shape_input_indices holds 2, outside [-2, 1] for a node with 2 inputs"),
            ],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        known = known_creators(index)
        found = []
        for m, n in plugin_nodes(index):
            for name in ("plugin_version", "plugin_namespace"):
                a = n.attr(name)
                if a is None or a.ref_attr_name:
                    continue
                if a.type != "STRING":
                    shown = f" ({a.value})" if a.value is not None else ""
                    found.append((m, n, f"{name}:type", (
                        f"{name} is an {a.type} attribute{shown}; TensorRT's ONNX parser reads it as a string and asks for "
                        f"{'version' if name == 'plugin_version' else 'namespace'} '': write it as a STRING attribute"
                    )))
                elif name == "plugin_version" and a.value == "":
                    found.append((m, n, f"{name}:empty", "plugin_version is the empty string; no creator registers version ''"))
            a = n.attr(SHAPE_INPUTS)
            if a is None or a.ref_attr_name:
                continue
            hit = matches(n, known.get(n.op_type, []))
            if hit and all(k.family in ("creator_v2", "external") or k.family.startswith("v2") for k in hit) and any(k.family == "creator_v2" for k in hit):
                found.append((m, n, "shape:v2", (
                    f"{SHAPE_INPUTS} is set, but {hit[0].source} is an IPluginCreator (V2) creator: TensorRT's ONNX parser "
                    "ignores the indices and passes those inputs as ordinary tensors"
                )))
                continue
            if a.type != "INTS":
                found.append((m, n, "shape:type", f"{SHAPE_INPUTS} is an {a.type} attribute; TensorRT's ONNX parser accepts only INTS and fails the parse"))
                continue
            nin = n.num_inputs
            bad = [i for i in a.ints if not (-nin <= i < nin)]
            if bad:
                found.append((m, n, f"shape:range:{bad[0]}", (
                    f"{SHAPE_INPUTS} holds {bad[0]}, outside [{-nin}, {nin - 1}] for a node with {nin} inputs: TensorRT's "
                    "ONNX parser fails with \"Out-of-range shape input index\""
                )))
            norm = [i + nin if i < 0 else i for i in a.ints if -nin <= i < nin]
            if len(set(norm)) != len(norm):
                found.append((m, n, "shape:dup", f"{SHAPE_INPUTS} names the same input twice ({list(a.ints)})"))
        for _key, items in group(found, key=lambda it: (it[0].span.path, it[1].op_type, it[1].domain, it[2])):
            m, n, k, why = items[0]
            # the symbol names the problem too: one node can hold two (a version and a shape-input index)
            yield self.diag(n.span, f"{where([it[1] for it in items])}: {why}", symbol=f"{n.op_type}:{k.split(':', 1)[0]}",
                            logical=n.logical)
