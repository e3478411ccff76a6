"""What an ONNX model file holds: its nodes and their attributes (re-exported by :mod:`trtlint.base.facts`; their own
module to keep that one short). The ONNX frontend records them, the index holds them, and the ONNX rules read them.
The conventions of :mod:`trtlint.base.facts` hold."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from trtlint.base.span import Span


@dataclass(frozen=True)
class OnnxAttr:
    """One attribute of an ONNX node, with its ONNX ``AttributeProto`` type."""

    name: str
    type: str  # AttributeType name: "INT" | "FLOAT" | "STRING" | "INTS" | "FLOATS" | "STRINGS" | "TENSOR" | "GRAPH" | ...
    value: Optional[str] = None  # a short rendering of scalars and strings (None for tensors, graphs, long lists)
    length: int = 1  # elements in a list attribute or a tensor
    ints: tuple[int, ...] = ()  # INT/INTS values (at most the first 64)
    int_overflow: tuple[int, ...] = ()  # INT/INTS values outside int32 (at most 4)
    tensor_type: Optional[str] = None  # TENSOR: its TensorProto data type name, e.g. "INT64"
    ref_attr_name: Optional[str] = None  # set inside a function body: the value comes from the caller


@dataclass(frozen=True)
class OnnxNode:
    """A node of an ONNX model (main graph, subgraphs of control-flow nodes, model-local function bodies)."""

    op_type: str
    domain: str  # "" is the default ONNX domain
    name: str  # node.name, may be ""
    index: int  # position in its graph
    graph: str  # graph path: "main", "main/If_0/then_branch", "function:dom::Fn"
    span: Span  # the model file, line 1: ONNX is binary, ``logical`` says where
    attrs: tuple[OnnxAttr, ...] = ()
    num_inputs: int = 0
    standard: bool = False  # onnx.defs has a schema for (op_type, domain)

    @property
    def logical(self) -> str:
        return f"{self.graph}/{self.name or f'#{self.index}:{self.op_type}'}"

    def attr(self, name: str) -> Optional[OnnxAttr]:
        return next((a for a in self.attrs if a.name == name), None)


@dataclass(frozen=True)
class OnnxModel:
    """An ONNX model file: opset imports, model-local functions and every node."""

    span: Span
    graph: str  # the main graph's name
    ir_version: int = 0
    producer: str = ""
    opset_imports: tuple[tuple[str, int], ...] = ()  # (domain, version)
    functions: tuple[tuple[str, str, tuple[str, ...]], ...] = ()  # (domain, name, domains it imports)
    nodes: tuple[OnnxNode, ...] = ()
    external_data: tuple[str, ...] = ()  # locations of external tensor data (never read unless configured)
