"""One-node ONNX repro models, built with ``onnx.helper`` and checked with ``onnx.checker``.

Input shapes and dtypes come from an exported model that contains the node (the node is cut out with the
types of its inputs and outputs from the graph's inputs, value_info, outputs and initializers) or from
per-plugin config (``{"FooPlugin": {"inputs": ["float32[2,16]"], "outputs": ["float32[2,16]"]}}``).
Without either, inputs are one float32 tensor of symbolic shape: enough to make the parser look the creator
up, not enough to build an engine (the recipes that build report ``skipped (no input shapes)``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

#: the domain a repro node goes in when the project emits it in the default domain (onnx.checker rejects an
#: unknown op there; TensorRT's parser picks the plugin importer by op_type, whatever the domain)
REPRO_DOMAIN = "trtlint.repro"
DEFAULT_OPSET = 17

_DTYPES = {
    "float32": "FLOAT", "float": "FLOAT", "fp32": "FLOAT",
    "float16": "FLOAT16", "half": "FLOAT16", "fp16": "FLOAT16",
    "bfloat16": "BFLOAT16", "bf16": "BFLOAT16",
    "int32": "INT32", "int64": "INT64", "int8": "INT8", "uint8": "UINT8", "bool": "BOOL",
}


class ShapeSpecError(ValueError):
    pass


@dataclass
class TensorSpec:
    name: str
    dtype: str  # numpy-style name: "float32", "float16", "int32", ...
    shape: Optional[list]  # ints (static) or strings (symbolic); None: not known
    data: Optional[list] = None  # a small initializer's values (flattened), when the input is a constant

    @property
    def static(self) -> bool:
        return self.shape is not None and all(isinstance(d, int) and d >= 0 for d in self.shape)


@dataclass
class NodeIO:
    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    source: str  # "model:<path>" | "config:<path>" | "none"
    node_attrs: dict = field(default_factory=dict)  # attributes of the node found in the model (name -> value)

    @property
    def has_shapes(self) -> bool:
        return self.source != "none" and all(t.static for t in self.inputs if t.data is None)


def parse_spec(text: str, name: str) -> TensorSpec:
    """``float32[2,16]`` -> TensorSpec(name, "float32", [2, 16])."""
    m = re.fullmatch(r"\s*([A-Za-z0-9_]+)\s*\[([^\]]*)\]\s*", text)
    if not m or m.group(1).lower() not in _DTYPES:
        raise ShapeSpecError(f"bad tensor spec {text!r}: expected e.g. 'float32[2,16]' (dtypes: {', '.join(sorted(_DTYPES))})")
    dims: list = []
    for d in (x.strip() for x in m.group(2).split(",") if x.strip()):
        dims.append(int(d) if re.fullmatch(r"\d+", d) else d)
    return TensorSpec(name, m.group(1).lower(), dims)


def load_plugin_config(path: Path) -> dict:
    """Per-plugin input/output specs from a JSON or TOML file: ``{plugin: {"inputs": [...], "outputs": [...]}}``
    (TOML: ``[FooPlugin] inputs = ["float32[2,16]"]``)."""
    text = Path(path).read_text(encoding="utf-8")
    if str(path).endswith(".toml"):
        try:
            import tomllib
        except ModuleNotFoundError:  # pragma: no cover - python < 3.11
            import tomli as tomllib  # type: ignore
        data = tomllib.loads(text)
    else:
        data = json.loads(text)
    if not isinstance(data, dict):
        raise ShapeSpecError(f"{path}: expected a table of plugins")
    for plugin, spec in data.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("inputs", []), list):
            raise ShapeSpecError(f"{path}: [{plugin}] needs 'inputs' = a list of specs like 'float32[2,16]'")
        for i, s in enumerate(spec.get("inputs", [])):
            parse_spec(s, f"input{i}")
        for i, s in enumerate(spec.get("outputs", [])):
            parse_spec(s, f"output{i}")
    return data


def _np_name(elem_type: int) -> str:
    from onnx import helper

    try:
        import numpy as np

        return np.dtype(helper.tensor_dtype_to_np_dtype(elem_type)).name
    except Exception:  # noqa: BLE001 - an exotic type: keep its ONNX name
        from onnx import TensorProto

        return TensorProto.DataType.Name(elem_type).lower()


def _vi_spec(vi) -> TensorSpec:
    t = vi.type.tensor_type
    shape = None
    if t.HasField("shape"):
        shape = [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in t.shape.dim]
    return TensorSpec(vi.name, _np_name(t.elem_type), shape)


def io_from_model(model_path: Path, op_type: str, domain: Optional[str] = None, max_const: int = 4096) -> Optional[NodeIO]:
    """Cut the first node ``op_type`` (in ``domain`` when given) out of an exported model: its inputs and
    outputs with their types. Small constant inputs keep their values."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(model_path), load_external_data=False)
    g = model.graph
    node = next((n for n in g.node if n.op_type == op_type and (domain is None or n.domain == domain)), None)
    if node is None:
        node = next((n for n in g.node if n.op_type == op_type), None)
    if node is None:
        return None
    infos = {vi.name: vi for vi in list(g.input) + list(g.value_info) + list(g.output)}
    inits = {t.name: t for t in g.initializer}
    if not all(n in infos or n in inits for n in list(node.input) + list(node.output) if n):
        try:
            inferred = onnx.shape_inference.infer_shapes(model).graph
            infos.update({vi.name: vi for vi in list(inferred.value_info)})
        except Exception:  # noqa: BLE001 - a custom op stops inference: keep what the model declares
            pass

    def spec(name: str, is_input: bool) -> TensorSpec:
        if name in inits:
            t = inits[name]
            arr = numpy_helper.to_array(t)
            data = arr.flatten().tolist() if arr.size <= max_const else None
            return TensorSpec(name, arr.dtype.name, list(arr.shape), data)
        if name in infos:
            return _vi_spec(infos[name])
        return TensorSpec(name, "float32", None)

    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in attrs.items()}
    return NodeIO(
        inputs=[spec(n, True) for n in node.input if n],
        outputs=[spec(n, False) for n in node.output if n],
        source=f"model:{model_path}",
        node_attrs={k: v for k, v in attrs.items() if isinstance(v, (int, float, str, list))},
    )


def io_from_config(cfg: dict, plugin: str, origin: str) -> Optional[NodeIO]:
    spec = cfg.get(plugin)
    if not spec:
        return None
    ins = [parse_spec(s, f"input{i}") for i, s in enumerate(spec.get("inputs", []))]
    outs = [parse_spec(s, f"output{i}") for i, s in enumerate(spec.get("outputs", []))]
    if not outs and ins:
        outs = [TensorSpec("output0", ins[0].dtype, list(ins[0].shape or []))]
    return NodeIO(ins, outs, f"config:{origin}")


def default_io() -> NodeIO:
    return NodeIO([TensorSpec("input0", "float32", ["N"])], [TensorSpec("output0", "float32", ["N"])], "none")


_PLACEHOLDER = {"INT": 0, "FLOAT": 1.0, "STRING": "", "INTS": [0], "FLOATS": [1.0], "STRINGS": [""]}


def attr_value(attr, node_attrs: dict) -> tuple[Any, str]:
    """(value, where it came from) for one emitted attribute."""
    if attr.name in node_attrs:
        return node_attrs[attr.name], "exported model"
    if attr.value is not None and not isinstance(attr.value, (dict, set, tuple, bytes, complex)) and attr.value is not True and attr.value is not False:
        return attr.value, "source literal"
    if isinstance(attr.value, bool):
        return int(attr.value), "source literal"
    if isinstance(attr.value, tuple):
        return list(attr.value), "source literal"
    return _PLACEHOLDER.get(attr.type or "FLOAT", 1.0), f"placeholder ({attr.source or 'value'} is not known statically)"


def build_model(op_type: str, domain: Optional[str], attrs: dict, io: NodeIO, opset: int = DEFAULT_OPSET):
    """The one-node model: ``op_type`` in ``domain`` (the repro domain when the default one was emitted)."""
    import numpy as np
    from onnx import helper

    dom = domain if domain not in (None, "", "ai.onnx") else REPRO_DOMAIN

    def elem(dtype: str) -> int:
        return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))

    graph_inputs, inits = [], []
    for t in io.inputs:
        if t.data is not None:
            inits.append(helper.make_tensor(t.name, elem(t.dtype), t.shape, t.data))
        else:
            graph_inputs.append(helper.make_tensor_value_info(t.name, elem(t.dtype), t.shape if t.shape is not None else ["?"]))
    outs = [
        helper.make_tensor_value_info(t.name, elem(t.dtype), t.shape if t.shape is not None else ["?"])
        for t in io.outputs
    ]
    node = helper.make_node(op_type, [t.name for t in io.inputs], [t.name for t in io.outputs], name=f"{op_type}_0", domain=dom, **attrs)
    graph = helper.make_graph([node], f"trtlint_repro_{op_type}", graph_inputs, outs, initializer=inits)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid(dom, 1)],
        producer_name="trtlint-confirm",
    )
    model.ir_version = min(model.ir_version, 9)  # readable by the ONNX parsers TensorRT 10 ships
    return model


def check_model(model) -> None:
    """Raise onnx.checker.ValidationError when the model is not valid (custom domains included)."""
    import onnx

    onnx.checker.check_model(model, full_check=True)
