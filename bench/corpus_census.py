"""The text-only census of bench/corpus.py: every place a tree states a TensorRT plugin contract, found with
regular expressions over the text (never libclang, libcst or trtlint's frontends), so that it can judge what
trtlint's index holds.

Item kinds (each an ``Item(kind, file, line, name)``; ``extra`` carries what the mutation generator needs):

- ``plugin-class`` / ``creator-class``: a C++ class or struct whose bases name a TensorRT plugin interface
  (``IPluginV2*``, ``IPluginV3*``, ``IPluginExt``) or creator interface (``IPluginCreator*``), or a class the
  census already knows is one (iterated to a fixed point, across the whole tree, by the base's simple name);
- ``registration``: ``REGISTER_TENSORRT_PLUGIN(X)``, ``getPluginRegistry()->registerCreator(...)``, or a call of
  a project macro whose ``#define`` body contains ``REGISTER_TENSORRT_PLUGIN``;
- ``lookup``: ``getPluginCreator``/``getCreator`` (C++), ``get_plugin_creator``/``get_creator`` and
  ``plugin_creator_list`` scans (Python);
- ``field``: one ``PluginField`` built in C++ or ``trt.PluginField`` in Python, named by its string;
- ``emission``: a node naming a non-standard op: onnxscript calls on a custom opset, ``g.op("...")``,
  ``make_node("...")``, ``gs.Node(op=...)``, ``graph.layer(op=...)``;
- ``onnx-node``: a non-standard op type in an ``.onnx`` file (read with the onnx package; line 0), and
  ``onnx-file`` for a model that could not be read.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from collections import defaultdict
from pathlib import Path, PurePosixPath

CPP_EXT = {".h", ".hh", ".hpp", ".hxx", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".cu", ".inl", ".ipp"}
PY_EXT = {".py"}
SKIP_DIRS = {".git", ".trtlint_cache", "node_modules", "__pycache__"}
MAX_BYTES = 2_000_000  # larger text files are generated tables or amalgamations, not plugin code

PLUGIN_IFACE = re.compile(r"^(?:IPluginV2\w*|IPluginV3\w*|IPluginExt)$")
CREATOR_IFACE = re.compile(r"^IPluginCreator\w*$")
NOT_IFACE = re.compile(r"Layer$")  # IPluginV2Layer, IPluginV3Layer: network layers, not plugins


@dataclass
class Item:
    kind: str
    file: str
    line: int
    name: str
    extra: dict = field(default_factory=dict)

    @property
    def dynamic(self) -> bool:
        """The name is computed (a variable, an f-string; a Python field named by a variable the file never
        assigns a string literal: a loop variable over weights, a dict's keys, a parameter): no reading of the
        text alone can check it."""
        return self.name == "?" or "{" in self.name or bool(self.extra.get("computed"))

    def key(self) -> tuple:
        return (self.kind, self.file, self.line, self.name)

    def to_json(self) -> dict:
        return {"kind": self.kind, "file": self.file, "line": self.line, "name": self.name}


# --------------------------------------------------------------------------------------------------- text utils


_TOKENS = re.compile(r"//[^\n]*|/\*.*?(?:\*/|\Z)|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)
_IF0 = re.compile(r"(?ms)^[ \t]*#\s*if\s+0\b.*?^[ \t]*#\s*endif\b")


def _blank(m: re.Match) -> str:
    t = m.group(0)
    return t if t[0] in "\"'" else re.sub(r"[^\n]", " ", t)


def strip_cpp_comments(text: str) -> str:
    """Blank out // and /* */ comments and ``#if 0`` blocks, keeping every newline and offset (so lines stay
    put) and the string and character literals as they are."""
    s = _TOKENS.sub(_blank, text)
    return _IF0.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), s)


def strip_py_comments(text: str) -> str:
    return re.sub(r"(?m)^([ \t]*)#.*$", lambda m: m.group(1), text)


def line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def simple_name(base: str) -> str:
    base = re.sub(r"\b(public|private|protected|virtual)\b", " ", base).strip()
    depth, out = 0, []
    for ch in base:  # drop template arguments
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).strip().split("::")[-1].strip()


def split_bases(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p for p in (simple_name(p) for p in parts) if p]


def first_string(args: str) -> str | None:
    m = re.match(r"\s*(?:\w+\s*=\s*)?[rbuf]?[\"']([^\"'\n]*)[\"']", args)
    return m.group(1) if m else None


# ---------------------------------------------------------------------------------------------------- walking


# TensorRT's API headers (NvInfer.h, NvInferRuntime.h, NvInferPluginBase.h, NvOnnxParser.h, NvUffParser.h ...), which
# trees vendor: their registration and field declarations (``registerCreator``, ``PluginField``) are TensorRT's API
TRT_API_HEADER = re.compile(r"Nv(?:Infer\w*|OnnxParser\w*|UffParser|CaffeParser|OnnxConfig)\.h")


def tree_files(root: Path):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for fn in sorted(filenames):
            p = Path(dirpath) / fn
            ext = p.suffix.lower()
            if ext in CPP_EXT or ext in PY_EXT or ext == ".onnx":
                yield p, ext


def read_text(p: Path) -> str | None:
    try:
        if p.stat().st_size > MAX_BYTES:
            return None
        raw = p.read_bytes()
    except OSError:
        return None
    if b"\0" in raw[:4096]:
        return None
    return raw.decode("utf-8", errors="replace")


# ------------------------------------------------------------------------------------------------------ C++

CLASS_RE = re.compile(
    r"\b(class|struct)\s+(?:(?:alignas\([^)]*\)|__attribute__\(\([^)]*\)\)|\[\[[^\]]*\]\]|"
    r"[A-Z_][A-Z0-9_]*(?:\s*\((?:[^()\"]|\"(?:[^\"\\]|\\.)*\")*\))?)\s+)*"
    r"(\w+)\s*(?:final\s*)?:(?!:)\s*([^{;]*?)\{"
)
# a class a macro makes by token pasting (``class type##PluginLayerBuilder : public PluginLayerBuilderBase {``): not
# itself a census class (its expansions are), but what it derives is a base
PASTED_CLASS_RE = re.compile(r"\b(?:class|struct)\s+\w*##\w*\s*(?:final\s*)?:(?!:)\s*([^{;]*?)\{")
REG_MACRO_RE = re.compile(r"\bREGISTER_TENSORRT_PLUGIN\s*\(\s*([\w:<>]+)\s*\)")
REG_CALL_RE = re.compile(r"\bregisterCreator\s*\(\s*([^,;)]*)")
DEFINE_RE = re.compile(r"(?m)^[ \t]*#\s*define\s+(\w+)\s*\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)")
LOOKUP_CPP_RE = re.compile(r"\b(getPluginCreator|getCreator)\s*\(")
FIELD_CPP_RE = re.compile(r"\bPluginField\s*[({]\s*(?:(?:std::string\s*\()?\s*\"([^\"]*)\"|([A-Za-z_][\w:.>-]*))")
ENQUEUE_RE = re.compile(r"\b(enqueue)\s*\(")


def cpp_classes(rel: str, text: str) -> list[tuple[str, int, list[str]]]:
    out = []
    for m in CLASS_RE.finditer(text):
        bases = split_bases(m.group(3))
        if bases:
            out.append((m.group(2), line_of(text, m.start(2)), bases))
    return out


# a registrar class template (TensorRT's own ``PluginRegistrar<T>``, a project's copy of it): its constructor registers
# an instance of its parameter; a macro instantiating it (``static PluginRegistrar<name> r##name{}``) registers
REGISTRAR_RE = re.compile(r"\btemplate\s*<\s*(?:typename|class)\s+(\w+)\s*>\s*(?:class|struct)\s+(\w+)\s*\{")


def registrars(text: str) -> list[tuple[str, int]]:
    """(name, line of its registerCreator call) of each registrar class template of the text: a class template
    whose body registers a member of its parameter's type (``T instance{}; ... registerCreator(instance, ...)``)."""
    out = []
    for m in REGISTRAR_RE.finditer(text):
        param, name = m.group(1), m.group(2)
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += text[i] == "{"
            depth -= text[i] == "}"
            i += 1
        body = text[m.end():i]
        call = REG_CALL_RE.search(body)
        if call is None:
            continue
        arg = re.sub(r"[&*()\s]", "", call.group(1))
        if re.search(rf"\b{re.escape(param)}\s+{re.escape(arg)}\b", body):
            out.append((name, line_of(text, m.end() + call.start())))
    return out


def project_reg_macros(defs: list[tuple[str, str]], registrar_names: set[str] = frozenset()) -> set[str]:
    """Project macros whose body registers a creator (``#define REGISTER_X(n) REGISTER_TENSORRT_PLUGIN(n##C)``, or
    one instantiating a registrar template: ``static PluginRegistrar<name> r##name{}``), to a fixed point (a macro
    calling such a macro is one too)."""
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, body in defs:
            if name in found or name == "REGISTER_TENSORRT_PLUGIN":
                continue
            if "REGISTER_TENSORRT_PLUGIN" in body or any(re.search(rf"\b{re.escape(f)}\s*\(", body) for f in found) \
                    or any(re.search(rf"\b{re.escape(r)}\s*<", body) for r in registrar_names):
                found.add(name)
                changed = True
    return found


PASTED_DECL_RE = re.compile(r"\b(?:class|struct)\s+(\w*)##(\w*)\s*(?:final\s*)?:(?!:)\s*([^{;]*?)\{")


def macro_classes(texts: dict, plugin_names: set, creator_names: set) -> list[Item]:
    """The plugin and creator classes a project macro declares by pasting a parameter into their names
    (``#define DECLARE_X(type_string, ...) class type_string##TRTPluginLayerBuilder : public PluginBase {...}
    class type_string##PluginCreator : public nvinfer1::IPluginCreator {...}``), one per use of the macro
    (``DECLARE_X(Gelu, LAYER_GELU)``: GeluTRTPluginLayerBuilder, GeluPluginCreator), at the use's line."""
    made: dict[str, list[tuple[int, str, str, str]]] = {}  # macro -> (parameter index, prefix, suffix, kind)
    for _rel, (ext, text) in texts.items():
        if ext not in CPP_EXT or "##" not in text:
            continue
        for d in DEFINE_RE.finditer(text):
            params = [x.strip() for x in d.group(2).split(",")]
            for m in PASTED_DECL_RE.finditer(d.group(3).replace("\\\n", " ")):
                pre, suf = m.group(1), m.group(2)
                for i, prm in enumerate(params):
                    if pre.endswith(prm) or suf.startswith(prm):
                        break
                else:
                    continue
                head, tail = (pre[: -len(prm)], suf) if pre.endswith(prm) else (pre, suf[len(prm):])
                bases = split_bases(m.group(3))
                if any(CREATOR_IFACE.match(b) or b in creator_names for b in bases):
                    kind = "creator-class"
                elif any((PLUGIN_IFACE.match(b) and not NOT_IFACE.search(b)) or b in plugin_names for b in bases):
                    kind = "plugin-class"
                else:
                    continue
                made.setdefault(d.group(1), []).append((i, head, tail, kind))
    if not made:
        return []
    use = re.compile(r"(?m)^[ \t]*(" + "|".join(map(re.escape, made)) + r")\s*\(([^()]*)\)")
    out: list[Item] = []
    for rel, (ext, text) in texts.items():
        if ext not in CPP_EXT:
            continue
        for m in use.finditer(text):
            args = [a.strip() for a in m.group(2).split(",")]
            for i, head, tail, kind in made[m.group(1)]:
                if i < len(args) and re.fullmatch(r"\w+", args[i]):
                    out.append(Item(kind, rel, line_of(text, m.start(1)), head + args[i] + tail, {"macro": m.group(1)}))
    return out


def cpp_items(rel: str, text: str, reg_macros: set[str], template_lines: frozenset = frozenset()) -> list[Item]:
    """``template_lines``: the lines of registrar templates' own registerCreator calls (counted at their macro's
    uses, not there)."""
    items: list[Item] = []
    define_lines = set()
    for m in DEFINE_RE.finditer(text):
        start = line_of(text, m.start())
        define_lines.update(range(start, start + m.group(0).count("\n") + 1))
    for m in REG_MACRO_RE.finditer(text):
        ln = line_of(text, m.start())
        if ln not in define_lines:
            items.append(Item("registration", rel, ln, m.group(1).split("::")[-1], {"form": "REGISTER_TENSORRT_PLUGIN"}))
    for m in REG_CALL_RE.finditer(text):
        ln = line_of(text, m.start())
        if ln in define_lines or ln in template_lines:
            continue
        arg = re.sub(r"[&*()\s]|std::make_unique<|new\s", "", m.group(1))
        items.append(Item("registration", rel, ln, simple_name(arg) or "?", {"form": "registerCreator"}))
    for mac in reg_macros:
        for m in re.finditer(rf"\b{re.escape(mac)}\s*\(\s*([^)]*)\)", text):
            ln = line_of(text, m.start())
            if ln not in define_lines:
                items.append(Item("registration", rel, ln, simple_name(m.group(1)) or mac, {"form": mac}))
    for m in LOOKUP_CPP_RE.finditer(text):
        ln = line_of(text, m.start())
        if ln in define_lines:
            continue
        # a declaration (`IPluginCreator* getPluginCreator(char const* name, ...) noexcept = 0;`) is no lookup
        seg = text[m.end() : m.end() + 200]
        if re.match(r"\s*(?:char|const|AsciiChar|nvinfer1::AsciiChar|std::string)\b", seg):
            continue
        items.append(Item("lookup", rel, ln, first_string(seg) or "?", {"form": m.group(1)}))
    for m in FIELD_CPP_RE.finditer(text):
        ln = line_of(text, m.start())
        if ln in define_lines:
            continue
        before = text[max(0, m.start() - 40) : m.start()]
        if re.search(r"(?:struct|class)\s*$", before):
            continue
        name = m.group(1) if m.group(1) is not None else m.group(2)
        items.append(Item("field", rel, ln, name, {"lang": "cpp", "literal": m.group(1) is not None}))
    return items


# --------------------------------------------------------------------------------------------------- Python

_STD_OPS: set[str] | None = None


def standard_ops() -> set[str]:
    global _STD_OPS
    if _STD_OPS is None:
        try:
            import onnx.defs

            _STD_OPS = {s.name for s in onnx.defs.get_all_schemas_with_history() if s.domain in ("", "ai.onnx")}
        except Exception:  # onnx missing: every op counts as non-standard
            _STD_OPS = set()
    return _STD_OPS


def is_plugin_op(op: str, domain: str | None) -> bool:
    if "::" in op:
        domain, op = op.split("::", 1)
        if domain in ("onnx", "prim", "aten", ""):
            return False
        return True
    if domain in _ONNX_OWN_DOMAINS:
        return False  # ONNX's own operator sets beside the default one (ONNX-ML, training): not plugin ops
    if domain not in (None, "", "ai.onnx"):
        return True
    return op not in standard_ops()


_ONNX_OWN_DOMAINS = frozenset({"ai.onnx.ml", "ai.onnx.preview.training", "ai.onnx.preview"})


G_OP_RE = re.compile(r"\b(?:g|graph|ctx\.graph|self\.g)\.op\s*\(\s*[rbuf]?[\"']([^\"']+)[\"']")
MAKE_NODE_RE = re.compile(r"\bmake_node\s*\(\s*(?:op_type\s*=\s*)?[rbuf]?[\"']([^\"']+)[\"']")
GS_NODE_RE = re.compile(r"\b(?:gs\.)?Node\s*\(\s*(?:op\s*=\s*)?[rbuf]?[\"']([^\"']+)[\"']|\b(?:gs\.)?Node\s*\([^()]*?\bop\s*=\s*[rbuf]?[\"']([^\"']+)[\"']", re.S)
LAYER_RE = re.compile(r"\.layer\s*\([^()]*?\bop\s*=\s*[rbuf]?[\"']([^\"']+)[\"']", re.S)
# the op named by a variable: ``op = "EfficientNMS_TRT"`` ... ``graph.layer(op=op, ...)`` / ``gs.Node(op=op_name)``
OP_VAR_RE = re.compile(r"(?:\.layer|\b(?:gs\.)?Node)\s*\([^()]*?\bop\s*=\s*([A-Za-z_]\w*)\s*[,)]", re.S)
OPSET_RE = re.compile(r"\b(\w+)\s*=\s*(?:onnxscript\.)?(?:values\.)?(?:Opset|CustomOpset)\s*\(\s*(?:domain\s*=\s*)?[\"']([^\"']*)[\"']")
PY_FIELD_RE = re.compile(r"\b(?:trt\.|tensorrt\.)?PluginField\s*\(\s*(?:name\s*=\s*)?(?:[rbuf]?[\"']([^\"']*)[\"']|([A-Za-z_][\w.]*))")
PY_LOOKUP_RE = re.compile(r"\b(get_plugin_creator|get_creator)\s*\(")
PY_LIST_RE = re.compile(r"\.plugin_creator_list\b")  # the registry's attribute, not a variable of that name


def domain_kw(call: str) -> str | None:
    m = re.search(r"\bdomain\s*=\s*[rbuf]?[\"']([^\"']*)[\"']", call)
    return m.group(1) if m else None


def call_text(text: str, start: int, limit: int = 1500) -> str:
    """The text of the call whose opening parenthesis is at or after ``start`` (to its balanced close)."""
    i = text.find("(", start)
    if i < 0:
        return ""
    depth = 0
    for j in range(i, min(len(text), i + limit)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return text[i : j + 1]
    return text[i : i + limit]


def assigned_string(text: str, pos: int, var: str, window: int = 4000) -> str | None:
    """The string literal last assigned to ``var`` in the text before ``pos`` (within ``window`` characters)."""
    found = None
    for m in re.finditer(rf"(?m)^[ \t]*{re.escape(var)}\s*=\s*[rbuf]?[\"']([^\"'\n]+)[\"']\s*$", text[max(0, pos - window) : pos]):
        found = m.group(1)
    return found


PY_PLUGIN_CLASS_RE = re.compile(r"(?m)^([ \t]*)class\s+\w+\s*\(([^)]*\bIPlugin\w*[^)]*)\)\s*:")


def py_plugin_classes(text: str) -> list[tuple[int, int]]:
    """The bodies (offsets) of the Python classes deriving a TensorRT plugin or creator interface
    (``class P(trt.IPluginV3, ...)``): each ends at the next non-blank line indented no deeper than its ``class``."""
    out = []
    for m in PY_PLUGIN_CLASS_RE.finditer(text):
        ind = len(m.group(1).expandtabs())
        end = len(text)
        for ln in re.finditer(r"(?m)^([ \t]*)\S", text[m.end():]):
            if len(ln.group(1).expandtabs()) <= ind:
                end = m.end() + ln.start()
                break
        out.append((m.end(), end))
    return out


def py_items(rel: str, text: str) -> list[Item]:
    items: list[Item] = []
    classes = py_plugin_classes(text)
    for m in G_OP_RE.finditer(text):
        if is_plugin_op(m.group(1), None):
            items.append(Item("emission", rel, line_of(text, m.start()), m.group(1).split("::")[-1], {"form": "g.op"}))
    for m in MAKE_NODE_RE.finditer(text):
        if is_plugin_op(m.group(1), domain_kw(call_text(text, m.start()))):
            items.append(Item("emission", rel, line_of(text, m.start()), m.group(1), {"form": "make_node"}))
    gs_file = "onnx_graphsurgeon" in text  # a bare Node(...) is graph surgery only where the file imports it
    for m in GS_NODE_RE.finditer(text):
        op = m.group(1) or m.group(2)
        if not m.group(0).startswith("gs.") and not gs_file:
            continue  # another library's Node (rclpy, a converter's own graph class)
        if op and is_plugin_op(op, domain_kw(call_text(text, m.start()))):
            items.append(Item("emission", rel, line_of(text, m.start()), op, {"form": "gs.Node"}))
    for m in LAYER_RE.finditer(text):
        if is_plugin_op(m.group(1), domain_kw(m.group(0))):
            items.append(Item("emission", rel, line_of(text, m.start()), m.group(1), {"form": "graph.layer"}))
    for m in OP_VAR_RE.finditer(text):
        if not m.group(0).startswith((".", "gs.")) and not gs_file:
            continue
        op = assigned_string(text, m.start(), m.group(1))
        if op and is_plugin_op(op, domain_kw(call_text(text, m.start()))):
            form = "graph.layer" if m.group(0).startswith(".") else "gs.Node"
            items.append(Item("emission", rel, line_of(text, m.start()), op, {"form": form, "via": m.group(1)}))
    for m in OPSET_RE.finditer(text):
        var, dom = m.group(1), m.group(2)
        if dom in ("", "ai.onnx"):
            continue
        for c in re.finditer(rf"\b{re.escape(var)}\.(\w+)\s*\(", text):
            items.append(Item("emission", rel, line_of(text, c.start()), c.group(1), {"form": "onnxscript"}))
    for m in PY_FIELD_RE.finditer(text):
        before = text[max(0, m.start() - 20) : m.start()]
        if re.search(r"(?:class|def|import)\s+$", before) or text[m.end() : m.end() + 1] == "":
            continue
        name = m.group(1) if m.group(1) is not None else m.group(2)
        extra = {"lang": "py", "literal": m.group(1) is not None}
        if m.group(1) is None and not re.search(rf"(?m)^[ \t]*{re.escape(name)}\s*=\s*[rbuf]?[\"']", text):
            extra["computed"] = True
        if any(a <= m.start() < b for a, b in classes):
            extra["side"] = "class"  # a Python plugin's or creator's own field list, not a route's
        items.append(Item("field", rel, line_of(text, m.start()), name, extra))
    for m in PY_LOOKUP_RE.finditer(text):
        if re.search(r"\bdef\s+$", text[max(0, m.start() - 10) : m.start()]):
            continue
        items.append(Item("lookup", rel, line_of(text, m.start()), first_string(call_text(text, m.start())[1:]) or "?",
                          {"form": m.group(1)}))
    for m in PY_LIST_RE.finditer(text):
        window = text[m.end() : m.end() + 400]
        nm = re.search(r"\.name\s*==\s*[rbuf]?[\"']([^\"']+)[\"']", window)
        items.append(Item("lookup", rel, line_of(text, m.start()), nm.group(1) if nm else "?", {"form": "plugin_creator_list"}))
    return items


# ----------------------------------------------------------------------------------------------------- ONNX


def onnx_items(rel: str, path: Path) -> list[Item]:
    try:
        import onnx

        if path.stat().st_size < 200 and path.read_bytes().startswith(b"version https://git-lfs"):
            return [Item("onnx-file", rel, 0, "lfs-pointer")]
        model = onnx.load(str(path), load_external_data=False)
    except Exception as e:  # unreadable model (truncated, missing blob, external data): listed as such
        return [Item("onnx-file", rel, 0, f"unreadable: {type(e).__name__}")]
    seen: dict[str, None] = {}

    def walk(graph):
        for n in graph.node:
            if is_plugin_op(n.op_type, n.domain):
                seen.setdefault(n.op_type, None)
            for a in n.attribute:
                if a.g is not None and a.g.node:
                    walk(a.g)

    walk(model.graph)
    return [Item("onnx-node", rel, 0, op) for op in seen]


# ----------------------------------------------------------------------------------------------------- census


def census(root: Path) -> list[Item]:
    """Every census item of the tree at ``root`` (paths relative to it, POSIX)."""
    root = Path(root)
    texts: dict[str, tuple[str, str]] = {}
    items: list[Item] = []
    defs: list[tuple[str, str]] = []
    for p, ext in tree_files(root):
        rel = p.relative_to(root).as_posix()
        if ext == ".onnx":
            items.extend(onnx_items(rel, p))
            continue
        text = read_text(p)
        if text is None:
            continue
        if ext in CPP_EXT:
            text = strip_cpp_comments(text)
            defs.extend((m.group(1), m.group(3)) for m in DEFINE_RE.finditer(text))
        else:
            text = strip_py_comments(text)
        texts[rel] = (ext, text)
    regs = {rel: registrars(text) for rel, (ext, text) in texts.items()
             if ext in CPP_EXT and "registerCreator" in text and "template" in text}
    reg_macros = project_reg_macros(defs, {n for rr in regs.values() for n, _ln in rr})
    classes: list[tuple[str, str, int, list[str]]] = []
    for rel, (ext, text) in texts.items():
        if ext in CPP_EXT:
            if TRT_API_HEADER.fullmatch(PurePosixPath(rel).name):
                continue  # TensorRT's own API headers shipped in the tree: declarations, not the project's plugins
            classes.extend((rel, n, ln, b) for n, ln, b in cpp_classes(rel, text))
            items.extend(cpp_items(rel, text, reg_macros, frozenset(ln for _n, ln in regs.get(rel, ()))))
        else:
            items.extend(py_items(rel, text))
    # plugin and creator classes, to a fixed point over the whole tree
    plugin_names: set[str] = set()
    creator_names: set[str] = set()
    changed = True
    while changed:
        changed = False
        for _rel, name, _ln, bases in classes:
            if PLUGIN_IFACE.match(name) or CREATOR_IFACE.match(name):
                continue  # the interfaces themselves (a vendored NvInfer header)
            is_c = any(CREATOR_IFACE.match(b) or b in creator_names for b in bases)
            is_p = not is_c and any((PLUGIN_IFACE.match(b) and not NOT_IFACE.search(b)) or b in plugin_names for b in bases)
            if is_c and name not in creator_names:
                creator_names.add(name)
                changed = True
            if is_p and name not in plugin_names:
                plugin_names.add(name)
                changed = True
    # a class other census classes derive from is a base (``BaseCreator``, ``PluginCreatorBase<P>``): listed as
    # such, since a plugin is the concrete class TensorRT creates
    # A base is named by its simple name; where the tree holds several classes of that name (many independent
    # samples), the one in the deriving class's own directory is meant, and only when none is there all of them.
    dirs_of: dict[str, set[str]] = defaultdict(set)
    for rel, name, _ln, _b in classes:
        dirs_of[name].add(str(PurePosixPath(rel).parent))
    derived_from: set[tuple[str, str]] = set()  # (directory, name)
    for rel, n, _l, bases in classes:
        if n not in plugin_names and n not in creator_names:
            continue
        d = str(PurePosixPath(rel).parent)
        for b in bases:
            derived_from.update({(d, b)} if d in dirs_of.get(b, ()) else {(x, b) for x in dirs_of.get(b, ())})
    for rel, (ext, text) in texts.items():
        if ext in CPP_EXT and "##" in text:
            d = str(PurePosixPath(rel).parent)
            for m in PASTED_CLASS_RE.finditer(text):
                for b in split_bases(m.group(1).replace("\\\n", " ")):
                    if b in plugin_names or b in creator_names:
                        derived_from.update({(d, b)} if d in dirs_of.get(b, ()) else {(x, b) for x in dirs_of.get(b, ())})
    items.extend(macro_classes(texts, plugin_names, creator_names))
    for rel, name, ln, bases in classes:
        base = "-base" if (str(PurePosixPath(rel).parent), name) in derived_from else "-class"
        if name in creator_names:
            items.append(Item("creator" + base, rel, ln, name, {"bases": bases}))
        elif name in plugin_names:
            items.append(Item("plugin" + base, rel, ln, name, {"bases": bases}))
    items.sort(key=lambda i: (i.file, i.line, i.kind, i.name))
    return items


def texts_of(root: Path, files: set[str]) -> dict[str, str]:
    """The raw text of some files of the tree (for the mutation generator)."""
    out = {}
    for rel in files:
        t = read_text(Path(root) / rel)
        if t is not None:
            out[rel] = t
    return out
