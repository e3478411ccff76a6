"""Python frontend helper: PyTorch custom-op stubs, translation tables and translation-function signatures.

Run by :mod:`trtlint.frontends.python` on every Python file that passes a cheap text test. It uses CPython's
own parser (``ast``: parse only, nothing is imported or run), which is several times faster than libcst and
enough for signatures and dict literals:

* ``TorchOpStub``: ``@torch.library.custom_op("ns::op")`` functions with their parameter defaults, and
  schema strings (``torch.library.define("ns::op", "(Tensor x, int k=4) -> Tensor")``,
  ``Library("ns", "DEF").define("op(Tensor x, int k=4) -> Tensor")``);
* ``TranslationEntry``: ``{torch.ops.ns.op.default: fn}`` entries (the dynamo exporter's
  ``custom_translation_table``);
* ``PyFunctionSig``: module-level functions of a module that holds translations or onnxscript opsets, with
  their parameter defaults and the module functions they forward their arguments to.
"""

from __future__ import annotations

import ast
import re
from typing import Callable, Optional

from trtlint.base.facts import PyFunctionSig, Span, StubParam, TorchOpStub, TranslationEntry
from .fast import FastSearch as _FastSearch
from .fast import walk as _walk  # ast.walk's order, faster

# ``custom_op|torch\.library|\.define\s*\(|torch\.ops\.|onnxscript|Opset``, searched alternative by alternative
_GATE = _FastSearch([r"custom_op", r"torch\.library", r"\.define\s*\(", r"torch\.ops\.", r"onnxscript", r"Opset"])
_MAX = 120


def _short(s: str) -> str:
    s = " ".join(s.split())
    return s if len(s) <= _MAX else s[: _MAX - 3] + "..."


class _Src:
    def __init__(self, text: str, rel: str) -> None:
        self.text = text
        self.rel = rel
        self.lines = text.split("\n")

    def span(self, node: ast.AST) -> Span:
        l1 = getattr(node, "lineno", 1)
        c1 = getattr(node, "col_offset", 0)
        l2 = getattr(node, "end_lineno", None) or l1
        c2 = getattr(node, "end_col_offset", None)
        return Span(self.rel, l1, self._col(l1, c1), l2, self._col(l2, c2 if c2 is not None else c1))

    def _col(self, line: int, byte_off: int) -> int:
        # ast offsets are UTF-8 byte offsets; Span columns count characters (1-based)
        if 0 < line <= len(self.lines):
            s = self.lines[line - 1]
            if not s.isascii():
                return len(s.encode("utf-8")[:byte_off].decode("utf-8", "replace")) + 1
        return byte_off + 1

    def seg(self, node: ast.AST) -> str:
        """The node's source text (ast.get_source_segment re-splits the whole file on every call)."""
        l1, l2 = node.lineno, node.end_lineno or node.lineno
        c1, c2 = node.col_offset, node.end_col_offset
        if not (0 < l1 <= l2 <= len(self.lines)) or c2 is None:
            return ""
        if l1 == l2:
            b = self.lines[l1 - 1].encode("utf-8")[c1:c2]
            return _short(b.decode("utf-8", "replace"))
        first = self.lines[l1 - 1].encode("utf-8")[c1:].decode("utf-8", "replace")
        last = self.lines[l2 - 1].encode("utf-8")[:c2].decode("utf-8", "replace")
        return _short("\n".join([first, *self.lines[l1:l2 - 1], last]))


def _dotted(node: ast.AST) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _params(src: _Src, args: ast.arguments) -> tuple[StubParam, ...]:
    pos = list(args.posonlyargs) + list(args.args)
    defaults: list[Optional[ast.AST]] = [None] * (len(pos) - len(args.defaults)) + list(args.defaults)
    out = []
    for a, d in zip(pos, defaults):
        out.append(StubParam(a.arg, src.span(d if d is not None else a), src.seg(d) if d is not None else None,
                             src.seg(a.annotation) if a.annotation is not None else None))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out.append(StubParam(a.arg, src.span(d if d is not None else a), src.seg(d) if d is not None else None,
                             src.seg(a.annotation) if a.annotation is not None else None))
    return tuple(out)


def _schema_params(schema: str, span: Span) -> Optional[tuple[StubParam, ...]]:
    """``(Tensor x, int k=4, *, float eps=1e-06) -> Tensor`` -> params (spans: the schema string's)."""
    m = re.search(r"\((.*)\)\s*->", schema, re.S)
    if m is None:
        return None
    inner = m.group(1)
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    out = []
    for p in parts:
        p = p.strip()
        if not p or p == "*":
            continue
        default = None
        if "=" in p:
            p, default = (x.strip() for x in p.split("=", 1))
        bits = p.rsplit(None, 1)
        if len(bits) != 2:
            continue
        out.append(StubParam(bits[1], span, default, bits[0]))
    return tuple(out)


def _const_str(node: Optional[ast.AST]) -> Optional[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def extract(text: str, rel: str, tree_of: Optional[Callable[[], ast.AST]] = None) -> dict:
    """Facts for FileFacts: ``torch_stubs``, ``py_functions``, ``translation_entries`` (only the non-empty).
    ``tree_of``: returns the text's ``ast`` tree (parsed once by the caller) or raises what ``ast.parse`` raised."""
    if _GATE.search(text) is None:
        return {}
    try:
        tree = tree_of() if tree_of is not None else ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}  # the libcst pass reports the syntax error
    src = _Src(text, rel)
    stubs: list[TorchOpStub] = []
    entries: list[TranslationEntry] = []
    library_ns: dict[str, str] = {}  # variable -> namespace of torch.library.Library("ns", ...)
    module_fns = {st.name: st for st in tree.body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))}

    for node in _walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for dec in node.decorator_list:
                if not isinstance(dec, ast.Call):
                    continue
                name = _dotted(dec.func) or ""
                if name.split(".")[-1] != "custom_op" or not dec.args:
                    continue
                op = _const_str(dec.args[0])
                if op and "::" in op:
                    stubs.append(TorchOpStub(op=op, span=src.span(dec.args[0]), params=_params(src, node.args),
                                             how="custom_op", function=node.name))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            fname = _dotted(node.value.func) or ""
            if fname.split(".")[-1] == "Library" and node.value.args:
                ns = _const_str(node.value.args[0])
                if ns:
                    for t in node.targets:
                        if isinstance(t, ast.Name):
                            library_ns[t.id] = ns
        elif isinstance(node, ast.Call):
            fname = _dotted(node.func) or ""
            if fname.split(".")[-1] != "define" or not node.args:
                continue
            first = _const_str(node.args[0])
            if first is None:
                continue
            if len(node.args) >= 2 and _const_str(node.args[1]) is not None and "::" in first:
                op, schema, at = first, _const_str(node.args[1]), node.args[1]  # torch.library.define(op, schema)
            elif "(" in first:
                owner = fname.rsplit(".", 1)[0] if "." in fname else ""
                ns = library_ns.get(owner)
                if ns is None:
                    continue
                op, schema, at = f"{ns}::{first.split('(', 1)[0].strip()}", first, node.args[0]
            else:
                continue
            params = _schema_params(schema or "", src.span(at))
            if params is not None:
                stubs.append(TorchOpStub(op=op, span=src.span(at), params=params, how="define"))
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if k is None or not isinstance(v, (ast.Name, ast.Attribute)):
                    continue
                d = _dotted(k) or ""
                parts = d.split(".")
                if len(parts) >= 4 and parts[0] == "torch" and parts[1] == "ops":
                    fn = _dotted(v) or ""
                    entries.append(TranslationEntry(op=f"{parts[2]}::{parts[3]}", function=fn.split(".")[-1], span=src.span(k)))

    fns: list[PyFunctionSig] = []
    if entries or re.search(r"onnxscript|Opset", text):
        for name, fn in module_fns.items():
            params = _params(src, fn.args)
            forwards = []
            for sub in _walk(fn):
                if not isinstance(sub, ast.Call) or not isinstance(sub.func, ast.Name) or sub.func.id not in module_fns:
                    continue
                callee = module_fns[sub.func.id]
                cparams = [a.arg for a in list(callee.args.posonlyargs) + list(callee.args.args)]
                mapping = []
                for i, arg in enumerate(sub.args):
                    if isinstance(arg, ast.Starred) or i >= len(cparams):
                        break
                    mapping.append((cparams[i], src.seg(arg)))
                for kw in sub.keywords:
                    if kw.arg is not None:
                        mapping.append((kw.arg, src.seg(kw.value)))
                forwards.append((sub.func.id, tuple(mapping)))
            fns.append(PyFunctionSig(name=name, span=src.span(fn), params=params, forwards=tuple(forwards)))
    out: dict = {}
    if stubs:
        out["torch_stubs"] = tuple(stubs)
    if fns:
        out["py_functions"] = tuple(fns)
    if entries:
        out["translation_entries"] = tuple(entries)
    return out
