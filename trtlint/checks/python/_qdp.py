"""TensorRT's own validation of ``tensorrt.plugin`` definitions (``tensorrt/plugin/_validate.py``), applied
to the annotation text the frontend normalized (names qualified through imports)."""

from __future__ import annotations

import re
from typing import Optional

SERIALIZABLE_BUILTIN = ("int", "float", "bytes", "bool", "str")
SERIALIZABLE_NP = ("int8", "int16", "int32", "int64", "float16", "float32", "float64", "bool", "bool_")
RESERVED_NAMESPACES = ("", "trt", "tensorrt", "std")
DISALLOWED_ATTR_NAMES = ("outputs", "stream", "tactic")
_TUPLE = ("typing.Tuple", "tuple", "Tuple")
_LIST = ("typing.List", "list", "List")


def _last(q: Optional[str]) -> str:
    return (q or "").rsplit(".", 1)[-1]


def is_plugin_class(ann: Optional[str], cls: str) -> bool:
    """``tensorrt.plugin.TensorDesc`` (or the name imported from it)."""
    if ann is None:
        return False
    return ann in (f"tensorrt.plugin.{cls}", f"tensorrt.plugin._tensor.{cls}", f"tensorrt.plugin._autotune.{cls}") or (
        ann == cls
    )


def split_generic(ann: Optional[str]) -> tuple[Optional[str], list[str]]:
    """``typing.Tuple[a, b]`` -> ("typing.Tuple", ["a", "b"]); a plain name -> (name, [])."""
    if ann is None:
        return None, []
    m = re.fullmatch(r"([\w.]+)\[(.*)\]", ann)
    if not m:
        return ann, []
    inner, depth, cur, parts = m.group(2), 0, "", []
    for ch in inner:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return m.group(1), parts


def is_tuple_of(ann: Optional[str], cls: str) -> bool:
    base, args = split_generic(ann)
    if base not in _TUPLE or not args:
        return False
    return all(is_plugin_class(a, cls) or a == "..." for a in args)


def is_list_of(ann: Optional[str], cls: str) -> bool:
    base, args = split_generic(ann)
    return base in _LIST and bool(args) and all(is_plugin_class(a, cls) for a in args)


def numpy_attr(ann: str) -> Optional[tuple[bool, Optional[str]]]:
    """For a numpy array annotation: (is NDArray[...] typed?, dtype name or None). None when not numpy."""
    if ann in ("numpy.ndarray",):
        return (False, None)
    base, args = split_generic(ann)
    if base in ("numpy.typing.NDArray", "numpy.ndarray"):
        dt = args[-1] if args else None
        if dt is not None:
            b2, a2 = split_generic(dt)
            if a2:
                dt = a2[0]
        return (True, _last(dt) if dt else None)
    return None


def register_problems(d) -> list[tuple[object, str]]:
    """(span, message) for every rule ``trtp.register`` enforces on the decorated function."""
    out = []
    saw_attr = False
    for idx, p in enumerate(d.params):
        span = p.span or d.span
        if p.kind not in ("pos", "kwonly"):
            what = {"posonly": "positional-only", "vararg": "*args", "kwarg": "**kwargs"}[p.kind]
            out.append((span, f"argument '{p.name}' is {what}: register functions take only positional-or-keyword or keyword-only arguments"))
            continue
        if p.annotation is None:
            out.append((span, f"argument '{p.name}' has no type annotation: register arguments must be annotated trtp.TensorDesc or a serializable attribute type"))
            continue
        if p.has_default:
            out.append((span, f"argument '{p.name}' has a default value: default values are not supported for plugin attributes"))
        if is_plugin_class(p.annotation, "TensorDesc"):
            if saw_attr:
                out.append((span, f"tensor argument '{p.name}' comes after an attribute: TensorDesc arguments must all come first"))
            continue
        if idx == 0:
            out.append((span, f"the first argument '{p.name}' is an attribute ({p.annotation}): TensorDesc arguments must come first"))
        saw_attr = True
        if p.name in DISALLOWED_ATTR_NAMES:
            out.append((span, f"'{p.name}' is not allowed as a plugin attribute name (reserved: outputs, stream, tactic)"))
        if p.annotation in SERIALIZABLE_BUILTIN:
            continue
        np_info = numpy_attr(p.annotation)
        if np_info is None:
            out.append((span, f"attribute '{p.name}' has type {p.annotation}, which is not serializable: use int, float, bytes, bool, str or numpy.typing.NDArray[dtype]"))
        elif not d.lazy:
            typed, dt = np_info
            if not typed:
                out.append((span, f"attribute '{p.name}' is annotated numpy.ndarray: without lazy_register, annotate numpy.typing.NDArray[dtype]"))
            elif dt is not None and dt not in SERIALIZABLE_NP:
                out.append((span, f"attribute '{p.name}' has numpy dtype {dt}, which is not serializable (int8/16/32/64, float16/32/64, bool)"))
    if d.returns is None:
        out.append((d.span, "the register function has no return annotation: annotate trtp.TensorDesc or Tuple[trtp.TensorDesc, ...]"))
    elif not (is_plugin_class(d.returns, "TensorDesc") or is_tuple_of(d.returns, "TensorDesc")):
        out.append((d.span, f"the register function returns {d.returns}: return types can only be TensorDesc or Tuple[TensorDesc, ...]"))
    return out


def registered_schema(reg) -> tuple[list[str], dict[str, Optional[str]]]:
    tensors = [p.name for p in reg.params if p.kind in ("pos", "kwonly") and is_plugin_class(p.annotation, "TensorDesc")]
    attrs = {p.name: p.annotation for p in reg.params if p.kind in ("pos", "kwonly") and p.name not in tensors}
    return tensors, attrs


def companion_problems(d, reg) -> list[tuple[object, str]]:
    """impl / autotune / aot_impl against the register function (TensorRT's _validate_impl and friends)."""
    out = []
    tensors, attrs = registered_schema(reg)
    tensor_cls = "Tensor" if d.kind == "impl" else "TensorDesc"
    used_attrs = []
    tactic = False
    for p in d.params:
        span = p.span or d.span
        if p.name == "tactic":
            tactic = True
        if p.annotation is None:
            if p.name in attrs:
                used_attrs.append(p.name)
            continue
        if p.name == "outputs":
            if not is_tuple_of(p.annotation, tensor_cls):
                out.append((span, f"'outputs' is annotated {p.annotation}: it should be Tuple[trtp.{tensor_cls}]"))
        elif p.name == "stream" and d.kind == "impl":
            if p.annotation != "int":
                out.append((span, f"'stream' is annotated {p.annotation}: it should be int"))
        elif p.name == "tactic" and d.kind in ("impl", "aot_impl"):
            if p.annotation != "int":
                out.append((span, f"'tactic' is annotated {p.annotation}: it should be int"))
        elif is_plugin_class(p.annotation, tensor_cls):
            if p.name not in tensors:
                out.append((span, f"unexpected tensor '{p.name}': the registered input tensors are {tensors}"))
        else:
            if p.name not in attrs:
                out.append((span, f"unexpected attribute '{p.name}': the registered attributes are {list(attrs)}"))
                continue
            if attrs[p.name] != p.annotation:
                out.append((span, f"attribute '{p.name}' is annotated {p.annotation} but registered as {attrs[p.name]}"))
            used_attrs.append(p.name)
    expected = tensors + [a for a in attrs if a in used_attrs]
    if d.kind == "impl":
        expected += ["outputs", "stream"] + (["tactic"] if tactic else [])
    elif d.kind == "autotune":
        expected += ["outputs"]
    else:
        expected += ["outputs", "tactic"]
    actual = [p.name for p in d.params]
    if actual != expected and not out:
        out.append((d.span, f"the {d.kind} signature ({', '.join(actual)}) does not match the schema TensorRT expects: ({', '.join(expected)})"))
    if d.kind == "impl" and d.returns not in (None, "None"):
        out.append((d.span, f"the impl function returns {d.returns}: its return annotation should be None"))
    if d.kind == "autotune" and d.returns is not None:
        if not (is_plugin_class(d.returns, "AutoTuneCombination") or is_list_of(d.returns, "AutoTuneCombination")):
            out.append((d.span, f"the autotune function returns {d.returns}: return types can only be AutoTuneCombination or List[AutoTuneCombination]"))
    if d.kind == "aot_impl":
        base, args = split_generic(d.returns)
        if d.returns is None:
            out.append((d.span, "the aot_impl function has no return annotation: annotate Tuple[str | bytes, str | bytes, trtp.KernelLaunchParams, trtp.SymExprs]"))
        elif base not in _TUPLE or len(args) != 4:
            out.append((d.span, f"the aot_impl function returns {d.returns}: expected Tuple[str | bytes, str | bytes, trtp.KernelLaunchParams, trtp.SymExprs]"))
    return out


def id_problem(pid: Optional[str]) -> Optional[str]:
    """Why TensorRT rejects a plugin id (``register``'s ``split("::")`` and name/namespace validation)."""
    if pid is None:
        return None
    parts = pid.split("::")
    if len(parts) != 2:
        return f"'{pid}' is not of the form 'namespace::name' (it has {len(parts) - 1} '::' separators)"
    ns, name = parts
    if "." in ns:
        return f"the namespace '{ns}' of '{pid}' contains '.'"
    if "." in name:
        return f"the name '{name}' of '{pid}' contains '.'"
    if ns in RESERVED_NAMESPACES:
        return f"the namespace '{ns}' of '{pid}' is reserved by TensorRT ('', 'trt', 'tensorrt', 'std')"
    if not name:
        return f"'{pid}' has an empty name"
    return None
