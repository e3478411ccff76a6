"""The ONNX model reader of ``trtlint coverage``: what TensorRT's ONNX parser's importers restrict, per node.

The ONNX frontend (:mod:`trtlint.frontends.onnx`) keeps what the plugin rules need and drops the attributes of the
standard operators; coverage also judges the built-in importers' restrictions, so this reader keeps, per node:
every attribute with a small value (INT, FLOAT, STRING, short INTS/FLOATS, a TENSOR's element type), and per
input whether it is a constant (an initializer of its graph or an enclosing graph, or a ``Constant`` node's
output: the parser turns both into weights) and its element type where the model states it (initializers,
``Constant`` values, graph inputs, ``value_info``). Node locations are the ONNX frontend's ``graph/node`` labels,
so a node here and its :class:`~trtlint.base.facts.OnnxNode` have the same ``logical``.

Loading is the ONNX frontend's: the bytes are parsed without external data; a git-lfs pointer, a truncated or
non-ONNX file gives a :class:`ModelError`, never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

from trtlint.base import safeio
from .onnx import LFS_NOT_FETCHED, MAX_GRAPH_DEPTH, MAX_MODEL_BYTES, is_lfs_pointer, pb2
from .onnx_budget import over_budget

MAX_LIST = 16  # INTS/FLOATS longer than this keep no value


@dataclass(frozen=True)
class NodeInput:
    name: str
    constant: bool  # an initializer or a Constant node's output
    dtype: Optional[str]  # "FLOAT", "INT64", ...; None when the model does not say


@dataclass(frozen=True)
class NodeDetail:
    op_type: str
    domain: str
    name: str
    index: int
    graph: str
    attrs: dict  # name -> (ONNX attribute type, value or None)
    inputs: tuple[NodeInput, ...] = ()
    in_function: bool = False

    @property
    def logical(self) -> str:
        return f"{self.graph}/{self.name or f'#{self.index}:{self.op_type}'}"


@dataclass(frozen=True)
class ModelDetail:
    path: str
    opsets: dict  # domain ("" for ai.onnx) -> version
    functions: tuple[tuple[str, str], ...]  # (domain, name)
    nodes: tuple[NodeDetail, ...]
    producer: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)  # e.g. subgraphs nested too deep were not read


@dataclass(frozen=True)
class ModelError:
    path: str
    reason: str
    not_fetched: bool = False  # a Git LFS pointer: the model is not in the checkout, nothing is wrong with it



def read_model(path: Path, label: Optional[str] = None) -> Union[ModelDetail, ModelError]:
    label = label or str(path)
    try:
        size = path.stat().st_size
        if size == 0:
            return ModelError(label, "empty file, not an ONNX model")
        if size > MAX_MODEL_BYTES:
            return ModelError(label, f"{size} bytes, over the {MAX_MODEL_BYTES}-byte limit trtlint loads")
        # a model named on the command line may be a link (the user's own choice); a FIFO or device never
        data = safeio.read_bytes(path, limit=MAX_MODEL_BYTES, follow=True)
    except OSError as e:
        return ModelError(label, f"cannot read file: {e.strerror or e}")
    if is_lfs_pointer(data):
        return ModelError(label, LFS_NOT_FETCHED, not_fetched=True)
    too_large = over_budget(data)
    if too_large is not None:  # its parse alone would take gigabytes (a protobuf bomb)
        return ModelError(label, f"the model holds {too_large}")
    try:
        onnx = pb2()
        from google.protobuf.message import DecodeError
    except (ImportError, OSError) as e:  # pragma: no cover - onnx is a dependency
        return ModelError(label, f"the onnx package is unavailable: {e}")
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except DecodeError as e:
        return ModelError(label, f"not a valid ONNX model (protobuf decoding failed: {e})")
    except (RecursionError, ValueError, MemoryError) as e:
        return ModelError(label, f"not a valid ONNX model ({type(e).__name__}: {e})")
    if model.ir_version <= 0 or not model.HasField("graph"):
        return ModelError(label, "not an ONNX model: no IR version or no graph")
    r = _Reader(onnx)
    r.graph(model.graph, model.graph.name or "main", {}, 0)
    funcs = []
    for fn in model.functions:
        flabel = f"function:{fn.domain}::{fn.name}" if fn.domain else f"function:{fn.name}"
        funcs.append((fn.domain, fn.name))
        r.nodes_of(fn.node, flabel, {}, 0, in_function=True)
    opsets = {("" if op.domain == "ai.onnx" else op.domain): int(op.version) for op in model.opset_import}
    notes = (f"control-flow subgraphs nested deeper than {MAX_GRAPH_DEPTH} levels were not read",) if r.too_deep else ()
    return ModelDetail(label, opsets, tuple(funcs), tuple(r.nodes), model.producer_name, notes)


class _Reader:
    def __init__(self, onnx) -> None:
        self.onnx = onnx
        self.nodes: list[NodeDetail] = []
        self.too_deep = False
        self._dtype = onnx.TensorProto.DataType.Name
        self._atype = onnx.AttributeProto.AttributeType.Name

    def dtype(self, code: int) -> Optional[str]:
        try:
            return self._dtype(code) if code else None
        except ValueError:
            return f"UNKNOWN({code})"

    def graph(self, g, label: str, outer: dict, depth: int) -> None:
        # name -> (constant, dtype): what the graph and the graphs around it say about a tensor
        scope = dict(outer)
        for vi in list(g.input) + list(g.value_info) + list(g.output):
            if vi.type.HasField("tensor_type"):
                scope[vi.name] = (False, self.dtype(vi.type.tensor_type.elem_type))
        for init in g.initializer:
            scope[init.name] = (True, self.dtype(init.data_type))
        for sp in g.sparse_initializer:
            scope[sp.values.name] = (True, self.dtype(sp.values.data_type))
        self.nodes_of(g.node, label, scope, depth)

    def nodes_of(self, nodes, label: str, scope: dict, depth: int, in_function: bool = False) -> None:
        if depth > MAX_GRAPH_DEPTH:
            self.too_deep = True
            return
        scope = dict(scope)
        P = self.onnx.AttributeProto
        for i, n in enumerate(nodes):
            attrs = {}
            node_label = n.name or f"#{i}:{n.op_type}"
            for a in n.attribute:
                attrs[a.name] = self.attr(a, P)
                subs = ([a.g] if a.HasField("g") else []) + list(a.graphs)
                for k, sub in enumerate(subs):
                    suffix = a.name if len(a.graphs) <= 1 else f"{a.name}[{k}]"
                    self.graph(sub, f"{label}/{node_label}/{suffix}", scope, depth + 1)
            inputs = tuple(NodeInput(x, *scope.get(x, (False, None))) for x in n.input)
            self.nodes.append(NodeDetail(n.op_type, n.domain or "", n.name, i, label, attrs, inputs, in_function))
            if n.op_type == "Constant" and (n.domain or "") in ("", "ai.onnx") and n.output:
                t = attrs.get("value")
                scope[n.output[0]] = (True, t[1] if t and t[0] == "TENSOR" else None)

    def attr(self, a, P) -> tuple:
        try:
            t = self._atype(a.type)
        except ValueError:
            t = f"UNKNOWN({a.type})"
        if a.ref_attr_name:
            return (t, None)
        if a.type == P.INT:
            return (t, int(a.i))
        if a.type == P.FLOAT:
            return (t, float(a.f))
        if a.type == P.STRING:
            return (t, a.s.decode("utf-8", errors="replace")[:200])
        if a.type == P.INTS:
            return (t, tuple(int(v) for v in a.ints) if len(a.ints) <= MAX_LIST else None)
        if a.type == P.FLOATS:
            return (t, tuple(float(v) for v in a.floats) if len(a.floats) <= MAX_LIST else None)
        if a.type == P.TENSOR:
            return (t, self.dtype(a.t.data_type))
        return (t, None)
