"""The ONNX frontend: ``.onnx`` model files -> :class:`~trtlint.base.facts.OnnxModel`.

What it reads: opset imports, model-local functions, and every node (main graph, the subgraphs of control-flow
nodes, function bodies) with its op_type, domain, name, index, number of inputs and attributes with their ONNX
attribute types. Attribute values are kept only in the small form the rules need (scalars, the first INT/INTS
values, INT values outside int32, a tensor's data type); the attributes of nodes of the standard ONNX operator
set in the default domain are not kept at all (only a node outside it can reach a plugin creator).

Loading is cheap and safe: the model is parsed from its bytes without external data (the same as
``onnx.load(path, load_external_data=False)``); tensors stored outside the file are never read. A model with
more parts than protobuf can parse in bounded memory (:mod:`.onnx_budget`) is refused before the parse. A truncated,
invalid or non-ONNX file becomes a :class:`~trtlint.base.facts.ParseProblem` (TRT001), never an exception.
Locations are the file (line 1) plus a logical ``graph/node`` location (:attr:`OnnxNode.logical`).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
from pathlib import Path
from typing import Optional

from trtlint.base import safeio
from trtlint.base.facts import FileFacts, OnnxAttr, OnnxModel, OnnxNode, ParseProblem, Span
from . import ExtractContext, SourceFile
from .onnx_budget import over_budget

KIND_NAMES = ("onnx",)
VERSION = "1"

MAX_MODEL_BYTES = 1 << 30  # protobuf cannot parse 2 GiB; a 1 GiB model file is not read
MAX_GRAPH_DEPTH = 32  # nested control-flow subgraphs followed at most this deep
MAX_INTS_KEPT = 64
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
_MAX_TEXT = 200


LFS_POINTER = b"version https://git-lfs.github.com/spec/"
LFS_NOT_FETCHED = "model not fetched (a Git LFS pointer in place of the file); run `git lfs pull` to check it"


def is_lfs_pointer(data: bytes) -> bool:
    """A Git LFS pointer file (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md): a small text file
    whose first line names the spec; older pointers name ``https://hawser.github.com/spec/v1``."""
    return len(data) < 1024 and (data.startswith(LFS_POINTER) or data.startswith(b"version https://hawser.github.com/spec/"))


def extract(src: SourceFile, ctx: ExtractContext) -> FileFacts:
    rel = src.rel

    def problem(msg: str, partial: bool = False) -> FileFacts:
        return FileFacts(path=rel, kind=src.kind, digest=src.digest, problems=(ParseProblem(msg, Span(rel, 1), partial),))

    try:
        size = src.path.stat().st_size
    except OSError as e:
        return problem(f"cannot read file: {e.strerror or e}")
    if size == 0:
        return problem("empty file, not an ONNX model")
    if size > MAX_MODEL_BYTES:
        return problem(f"ONNX model is {size} bytes, over the {MAX_MODEL_BYTES}-byte limit trtlint loads")
    try:
        data = safeio.read_bytes(src.path, limit=MAX_MODEL_BYTES)
    except OSError as e:
        return problem(f"cannot read file: {e.strerror or e}")
    if is_lfs_pointer(data):
        return FileFacts(path=rel, kind=src.kind, digest=src.digest, problems=(ParseProblem(LFS_NOT_FETCHED, Span(rel, 1), note=True),))

    too_large = over_budget(data)
    if too_large is not None:  # its parse alone would take gigabytes (a protobuf bomb)
        return problem(f"ONNX model holds {too_large}; not analysed")
    try:
        onnx = _pb2()
        from google.protobuf.message import DecodeError
    except (ImportError, OSError) as e:  # pragma: no cover - onnx is a dependency
        return problem(f"the onnx package is unavailable: {e}")

    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except DecodeError as e:
        return problem(f"not a valid ONNX model (protobuf decoding failed: {e}); a truncated or corrupt file?")
    except (RecursionError, ValueError, MemoryError) as e:
        return problem(f"not a valid ONNX model ({type(e).__name__}: {e})")
    if model.ir_version <= 0 or not model.HasField("graph"):
        return problem("not an ONNX model: the file has no IR version or no graph (wrong file type?)")

    walker = _Walker(rel, onnx)
    problems: list[ParseProblem] = []
    main = model.graph.name or "main"
    walker.graph(model.graph, main, 0)
    functions = []
    for fn in model.functions:
        label = f"function:{fn.domain}::{fn.name}" if fn.domain else f"function:{fn.name}"
        functions.append((fn.domain, fn.name, tuple(sorted({op.domain for op in fn.opset_import}))))
        walker.nodes_of(fn.node, label, 0)
    if walker.too_deep:
        problems.append(
            ParseProblem(f"control-flow subgraphs nested deeper than {MAX_GRAPH_DEPTH} levels were not read", Span(rel, 1), True)
        )

    externals = walker.externals
    for init in model.graph.initializer:
        loc = _external_location(init, onnx)
        if loc is not None:
            externals.add(loc)
    outside = sorted(loc for loc in externals if not _inside(src.path.parent / loc, ctx.root))
    if outside:
        problems.append(
            ParseProblem(
                "external tensor data outside the project root is never read: " + ", ".join(outside[:3]),
                Span(rel, 1),
                True,
            )
        )

    om = OnnxModel(
        span=Span(rel, 1),
        graph=main,
        ir_version=int(model.ir_version),
        producer=_text(model.producer_name),
        opset_imports=tuple((op.domain, int(op.version)) for op in model.opset_import),
        functions=tuple(functions),
        nodes=tuple(walker.nodes),
        external_data=tuple(sorted(externals)),
    )
    return FileFacts(path=rel, kind=src.kind, digest=src.digest, problems=tuple(problems), models=(om,))


class _Walker:
    def __init__(self, rel: str, onnx) -> None:
        self.rel = rel
        self.onnx = onnx
        self.nodes: list[OnnxNode] = []
        self.too_deep = False
        self.externals: set[str] = set()
        self._type_name = onnx.AttributeProto.AttributeType.Name
        self._dtype_name = onnx.TensorProto.DataType.Name

    def graph(self, g, label: str, depth: int) -> None:
        self.nodes_of(g.node, label, depth)

    def nodes_of(self, nodes, label: str, depth: int) -> None:
        if depth > MAX_GRAPH_DEPTH:
            self.too_deep = True
            return
        for i, n in enumerate(nodes):
            domain = n.domain or ""
            standard = self.is_standard(n.op_type, domain)
            keep_attrs = not (standard and domain in ("", "ai.onnx"))
            attrs = []
            node_label = n.name or f"#{i}:{n.op_type}"
            for a in n.attribute:
                if keep_attrs:
                    attrs.append(self.attr(a))
                for k, sub in enumerate(self._subgraphs(a)):
                    suffix = a.name if len(a.graphs) <= 1 else f"{a.name}[{k}]"
                    self.graph(sub, f"{label}/{node_label}/{suffix}", depth + 1)
                if a.HasField("t"):
                    loc = _external_location(a.t, self.onnx)
                    if loc is not None:
                        self.externals.add(loc)
            self.nodes.append(
                OnnxNode(
                    op_type=n.op_type,
                    domain=domain,
                    name=n.name,
                    index=i,
                    graph=label,
                    span=Span(self.rel, 1),
                    attrs=tuple(attrs),
                    num_inputs=len(n.input),
                    standard=standard,
                )
            )

    @staticmethod
    def _subgraphs(a) -> list:
        out = []
        if a.HasField("g"):
            out.append(a.g)
        out.extend(a.graphs)
        return out

    def is_standard(self, op_type: str, domain: str) -> bool:
        return op_type in standard_ops().get("" if domain == "ai.onnx" else domain, ())

    def attr(self, a) -> OnnxAttr:
        P = self.onnx.AttributeProto
        try:
            tname = self._type_name(a.type)
        except ValueError:
            tname = f"UNKNOWN({a.type})"
        ref = a.ref_attr_name or None
        if a.type == P.INT:
            return OnnxAttr(a.name, tname, str(a.i), 1, (a.i,), _overflow([a.i]), ref_attr_name=ref)
        if a.type == P.FLOAT:
            return OnnxAttr(a.name, tname, f"{a.f:g}", ref_attr_name=ref)
        if a.type == P.STRING:
            return OnnxAttr(a.name, tname, _text(a.s), ref_attr_name=ref)
        if a.type == P.INTS:
            vals = a.ints
            return OnnxAttr(
                a.name,
                tname,
                _short_list(vals),
                len(vals),
                tuple(vals[:MAX_INTS_KEPT]),
                _overflow(vals),
                ref_attr_name=ref,
            )
        if a.type == P.FLOATS:
            return OnnxAttr(a.name, tname, _short_list([f"{f:g}" for f in a.floats[:9]], len(a.floats)), len(a.floats), ref_attr_name=ref)
        if a.type == P.STRINGS:
            return OnnxAttr(a.name, tname, _short_list([repr(_text(s)) for s in a.strings[:9]], len(a.strings)), len(a.strings), ref_attr_name=ref)
        if a.type == P.TENSOR:
            try:
                dt = self._dtype_name(a.t.data_type)
            except ValueError:
                dt = f"UNKNOWN({a.t.data_type})"
            n = 1
            for d in a.t.dims:
                n *= max(int(d), 0)
            return OnnxAttr(a.name, tname, None, n, tensor_type=dt, ref_attr_name=ref)
        length = len(a.graphs) or len(a.tensors) or len(a.sparse_tensors) or len(a.type_protos) or 1
        return OnnxAttr(a.name, tname, None, length, ref_attr_name=ref)


_PB2 = None


def _pb2():
    """onnx's generated protobuf module (``onnx.onnx_ml_pb2``) without importing the onnx package: ``import onnx``
    costs seconds (numpy, ml_dtypes, the reference evaluator) in every worker, parsing a model milliseconds.
    The module is loaded from the installed onnx package's file; its classes are the same ones ``onnx`` uses."""
    global _PB2
    if _PB2 is None:
        mod = sys.modules.get("onnx.onnx_ml_pb2")
        if mod is None:
            spec = importlib.util.find_spec("onnx")
            if spec is None or not spec.submodule_search_locations:
                raise ImportError("the onnx package is not installed")
            path = os.path.join(list(spec.submodule_search_locations)[0], "onnx_ml_pb2.py")
            loader_spec = importlib.util.spec_from_file_location("_trtlint_onnx_ml_pb2", path)
            if loader_spec is None or loader_spec.loader is None:
                raise ImportError(f"cannot load {path}")
            mod = importlib.util.module_from_spec(loader_spec)
            loader_spec.loader.exec_module(mod)
        _PB2 = mod
    return _PB2


def pb2():
    """onnx's generated protobuf module (see :func:`_pb2`), for the other ONNX readers among the frontends."""
    return _pb2()


@functools.lru_cache(maxsize=1)
def standard_ops() -> dict[str, frozenset]:
    """The ONNX standard's op_types by domain, from the shipped rules/ pack ``onnx_standard_ops.yaml``."""
    import yaml

    from trtlint.config.packs import shipped_dir

    try:  # libyaml's loader when the wheel has it (~20x faster here: this table is read by every worker)
        data = yaml.load((shipped_dir() / "onnx_standard_ops.yaml").read_text(encoding="utf-8"),
                         Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        doms = data["onnx_standard_ops"]["domains"]
    except (OSError, KeyError, TypeError, yaml.YAMLError):  # pragma: no cover - a shipped file
        return {}
    return {d: frozenset(v) for d, v in doms.items()}


def standard_ops_from_onnx() -> dict[str, list[str]]:
    """The same table computed from the installed onnx package (``onnx.defs``): regenerates the pack."""
    import onnx.defs

    out: dict[str, set] = {}
    for sch in onnx.defs.get_all_schemas_with_history():
        out.setdefault(sch.domain, set()).add(sch.name)
    return {d: sorted(v) for d, v in sorted(out.items())}


def write_standard_ops(path: Path) -> None:
    import onnx

    lines = [
        "# The operators of the ONNX standard (every schema the onnx package defines, all versions), by domain.",
        '# The ONNX frontend marks a node `standard` when its op_type is here for its domain ("ai.onnx" is "").',
        "# Generated from onnx.defs by `python -m trtlint.frontends.onnx --write-standard-ops`; a test compares it with the",
        "# installed onnx package.",
        "version: 1",
        "onnx_standard_ops:",
        f'  onnx_version: "{onnx.__version__}"',
        "  domains:",
    ]
    for dom, names in standard_ops_from_onnx().items():
        lines.append(f'    "{dom}":')
        lines.extend(f"      - {n}" for n in names)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _overflow(vals) -> tuple[int, ...]:
    out = []
    for v in vals:
        if v < INT32_MIN or v > INT32_MAX:
            out.append(int(v))
            if len(out) >= 4:
                break
    return tuple(out)


def _short_list(vals, total: Optional[int] = None) -> Optional[str]:
    total = len(vals) if total is None else total
    if total > 8:
        return None
    text = "[" + ", ".join(str(v) for v in vals) + "]"
    return text if len(text) <= _MAX_TEXT else None


def _text(b) -> str:
    s = b.decode("utf-8", errors="replace") if isinstance(b, (bytes, bytearray)) else str(b)
    return s if len(s) <= _MAX_TEXT else s[:_MAX_TEXT] + "…"


def _external_location(t, onnx) -> Optional[str]:
    if t.data_location != onnx.TensorProto.EXTERNAL:
        return None
    for kv in t.external_data:
        if kv.key == "location":
            return kv.value
    return "?"


def _inside(p: Path, root: Path) -> bool:
    """Whether ``p`` stays under ``root`` (without following it: paths are compared, nothing is opened)."""
    try:
        real = Path(os.path.normpath(str(p if p.is_absolute() else Path.cwd() / p)))
        base = Path(os.path.normpath(str(root.resolve())))
        real.relative_to(base)
        return True
    except (ValueError, OSError):
        return False


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    if sys.argv[1:] == ["--write-standard-ops"]:
        from trtlint.config.packs import shipped_dir

        write_standard_ops(shipped_dir() / "onnx_standard_ops.yaml")
    else:
        print("usage: python -m trtlint.frontends.onnx --write-standard-ops")
