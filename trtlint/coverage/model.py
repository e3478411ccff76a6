"""``trtlint coverage``: will an ONNX model import into TensorRT, judged statically, without TensorRT or a GPU.

Every node of a model (main graph, control-flow subgraphs, model-local function bodies) gets one class, following
TensorRT's ONNX parser's dispatch (:mod:`trtlint.checks.onnx._nodes`):

- ``builtin``: a built-in importer takes it (the ``onnx_importers`` pack) and no restriction it can check says no;
- ``restricted``: a built-in importer takes it, but the node breaks one of the importer's documented restrictions
  (``onnx_restrictions`` pack: an attribute value, an input that must be a constant, an element type, the opset);
- ``function``: a call of a model-local function (its body's nodes are classified themselves);
- ``project``: a plugin node a creator of the project answers (which creator, at which file:line);
- ``library``: a plugin node TensorRT's own plugin library (libnvinfer_plugin) answers;
- ``problem``: a plugin node a creator answers, with a TRT5xx finding (the parser or the plugin fails on it);
- ``unsupported``: no importer, no creator: the parser fails here (the reason says which lookup failed).

:func:`classify` is a pure function from a model's details (:mod:`trtlint.frontends.onnx_detail`), the
:class:`Knowledge` (built-ins, creators, restrictions) and the TRT5xx findings per node to a
:class:`ModelCoverage`; :func:`classify_op` answers for one op (the language server's hover). The renderers
(text, json, markdown) are pure functions of a :class:`CoverageReport`.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional

from trtlint.checks.onnx._nodes import dispatch, known_creators, release_of, requested_from
from trtlint.config.onnx_importers import OnnxImporters
from trtlint.coverage.hints import next_step, restriction_hint
from trtlint.frontends.onnx_detail import ModelDetail, NodeDetail

CLASSES = ("builtin", "restricted", "function", "project", "library", "problem", "unsupported")
FAILING = ("restricted", "problem", "unsupported")
LABELS = {
    "builtin": "built-in importer",
    "restricted": "built-in, restricted",
    "function": "model-local function",
    "project": "project plugin",
    "library": "TensorRT plugin library",
    "problem": "plugin node with a problem",
    "unsupported": "unsupported",
}
DEFAULT_DOMAINS = ("", "ai.onnx")


@lru_cache(maxsize=256)
def version_tuple(v: str) -> tuple[int, ...]:
    out = []
    for part in str(v).split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        if not digits:
            break
        out.append(int(digits))
    return tuple(out)


@dataclass(frozen=True)
class Knowledge:
    """What classification knows: the importers per release, the creators by name (:class:`Known`), the
    restrictions, the standard ops, and the TensorRT release judged against."""

    importers: OnnxImporters
    creators: dict  # name -> list[Known]
    restrictions: dict  # the onnx_restrictions pack
    tensorrt: str  # the TensorRT release judged against (a model may name its own: classify's ``release``)
    standard: dict  # domain -> frozenset of op_types of the ONNX standard
    foreign_domains: frozenset  # other runtimes' domains (com.microsoft, ...)

    @property
    def builtins(self) -> frozenset:
        """Every op some release imports (:meth:`OnnxImporters.imports` says whether a given one does)."""
        return frozenset(self.importers.ops)


def knowledge_of(index, tensorrt: Optional[str] = None) -> Knowledge:
    """The knowledge of a :class:`~trtlint.index.project_index.ProjectIndex` (its creators and packs), judged
    against ``tensorrt``, else the release the project targets (as ``trtlint check`` judges it)."""
    from trtlint.frontends.onnx import standard_ops

    res = dict(index.packs.onnx_restrictions)
    foreign = frozenset(d for d in index.profile.builtin_domains if d not in DEFAULT_DOMAINS and d != "trt")
    return Knowledge(
        importers=index.packs.onnx_importers,
        creators=known_creators(index),
        restrictions=res,
        tensorrt=tensorrt or index.tensorrt_version(None),
        standard=standard_ops(),
        foreign_domains=foreign,
    )


@dataclass(frozen=True)
class NodeClass:
    logical: str
    op_type: str
    domain: str
    cls: str  # one of CLASSES
    detail: str  # the creator and where, or why the node fails
    codes: tuple[str, ...] = ()  # findings of check's ONNX and contract rules on the node (TRT5xx, TRT10x)
    hint: str = ""  # what to do next (unsupported, restricted, problem)


@dataclass
class ModelCoverage:
    path: str
    nodes: list[NodeClass] = field(default_factory=list)
    error: Optional[str] = None  # the model could not be read
    skipped: Optional[str] = None  # the model was not analysed, and nothing is wrong with it (a Git LFS pointer)
    opset: Optional[int] = None
    notes: tuple[str, ...] = ()
    tensorrt: Optional[str] = None  # the TensorRT release the model was judged against

    def counts(self) -> dict[str, int]:
        c = Counter(n.cls for n in self.nodes)
        return {k: c.get(k, 0) for k in CLASSES}

    def by_op(self) -> list[dict]:
        """One row per (op, domain, class): the count and an example node."""
        rows: dict[tuple, dict] = {}
        for n in self.nodes:
            key = (n.domain, n.op_type, n.cls, n.detail if n.cls != "builtin" else "")
            r = rows.get(key)
            if r is None:
                rows[key] = {"op_type": n.op_type, "domain": n.domain, "class": n.cls, "count": 1, "example": n.logical,
                             "detail": n.detail, **({"hint": n.hint} if n.hint else {})}
            else:
                r["count"] += 1
        order = {c: i for i, c in enumerate(reversed(CLASSES))}
        return sorted(rows.values(), key=lambda r: (order[r["class"]], -r["count"], r["op_type"]))

    @property
    def failed(self) -> bool:
        return self.error is not None or any(n.cls in FAILING for n in self.nodes)


@dataclass
class CoverageReport:
    models: list[ModelCoverage]
    tensorrt: str
    unchecked: list[dict] = field(default_factory=list)  # restrictions not checked, for the ops the models use
    project: Optional[str] = None  # the project whose creators were known, or None
    profile: Optional[str] = None  # the profile the project (or the packs alone) were read with
    root: Optional[str] = None
    root_reason: str = ""  # how the project was found, or why there is none
    profile_source: str = "detected"  # "detected", "configured" or "from --profile" (as check's first line says)

    @property
    def failed(self) -> bool:
        return any(m.failed for m in self.models)

    def totals(self) -> dict[str, int]:
        c: Counter = Counter()
        for m in self.models:
            c.update(m.counts())
        return {k: c.get(k, 0) for k in CLASSES}


# ---------------------------------------------------------------------------------------------------------
# classification


def requested(attrs: dict) -> tuple[Optional[str], str]:
    """(plugin_version, plugin_namespace) the parser asks for; version None when not known statically."""
    version, namespace, _ = requested_from(attrs.get)
    return version, namespace


def classify_op(op_type: str, domain: str, know: Knowledge, attrs: Optional[dict] = None,
                functions: frozenset = frozenset(), release: Optional[str] = None) -> tuple[str, str]:
    """(class, detail) of one op as the parser of ``release`` (default: the knowledge's) dispatches it, before
    restrictions and findings."""
    cls, detail, _d = _classify_op(op_type, domain, know, attrs or {}, functions, release or know.tensorrt)
    return cls, detail


def _classify_op(op_type: str, domain: str, know: Knowledge, attrs: dict, functions, release: str):
    version, namespace = requested(attrs)
    std_domain = "" if domain == "ai.onnx" else domain
    d = dispatch(op_type, domain, version=version, namespace=namespace, importers=know.importers, release=release,
                 functions=functions, known=know.creators.get(op_type, ()),
                 standard=op_type in know.standard.get(std_domain, ()), foreign=domain in know.foreign_domains)
    shown = f"{domain}::{op_type}" if domain else op_type
    if d.kind == "builtin":
        return "builtin", "built-in importer" + (f" ({d.note})" if d.note else ""), d
    if d.kind == "function":
        return "function", "model-local function", d
    if d.kind == "plugin":
        k = d.creator
        where = f" ({k.span.path}:{k.span.line})" if k.span else ""
        if k.in_project:
            return "project", f"plugin {op_type} v{k.version or '?'}: {k.source}{where}", d
        return "library", f"plugin {op_type} v{k.version or '?'}: {k.source}", d
    if d.lookup == "standard":
        why = f"{d.note}," if d.note else "TensorRT's ONNX parser has no importer for it"
        return "unsupported", f"ONNX operator {shown}: {why} and no creator registers it", d
    if d.lookup == "foreign":
        return "unsupported", f"{shown} is an op of another runtime (domain '{domain}'): no importer, no creator", d
    if d.lookup == "name":
        later = f" ({d.note})" if d.note else ""
        return "unsupported", f"no importer{later}, and no creator registers '{op_type}' (project, plugin specs, TensorRT plugin library)", d
    ks = d.candidates
    if d.lookup == "version":
        regs = ", ".join(sorted({repr(k.version) for k in ks}))
        return "unsupported", f"asks for '{op_type}' version '{version}', but {ks[0].source} registers only version {regs}", d
    k = ks[0]
    return "unsupported", (f"asks for namespace '{namespace}' (then its domain '{domain}'), but {k.source} "
                           f"registers '{op_type}' in namespace '{k.namespace}'"), d


def restriction_of(node: NodeDetail, opset: Optional[int], know: Knowledge,
                   release: Optional[str] = None, by_op: Optional[dict] = None) -> Optional[tuple[str, str]]:
    """(why, what to do) when a built-in node breaks a restriction the importer of ``release`` (default: the
    knowledge's) documents, else None. ``by_op``: the checks by op (:func:`checks_by_op`), when already made."""
    res = know.restrictions
    trt = version_tuple(release or know.tensorrt)
    op = node.op_type
    for c in (by_op if by_op is not None else checks_by_op(know)).get(op, ()):
        if "since" in c and trt < version_tuple(c["since"]):
            continue
        if "until" in c and trt > version_tuple(c["until"]):
            continue
        if c["kind"] == "attribute":
            a = node.attrs.get(c["attribute"])
            if a is None:
                continue
            val = a[1]
            if c.get("absent"):
                return f"attribute: {c['attribute']} is set ({c['reason']})", restriction_hint(c, node)
            if val is None:
                continue
            if "allowed" in c and val not in c["allowed"]:
                return f"attribute: {c['attribute']}={val!r} ({c['reason']})", restriction_hint(c, node)
            if "all_equal" in c and isinstance(val, tuple) and any(v != c["all_equal"] for v in val):
                return f"attribute: {c['attribute']}={list(val)} ({c['reason']})", restriction_hint(c, node)
            if "length_in" in c and isinstance(val, tuple) and len(val) not in c["length_in"]:
                return f"attribute: {c['attribute']} has {len(val)} values ({c['reason']})", restriction_hint(c, node)
        elif c["kind"] == "opset":
            if opset is None or node.domain not in DEFAULT_DOMAINS:
                continue
            if "attribute" in c:
                a = node.attrs.get(c["attribute"])
                if a is None or not a[1]:
                    continue
            if ("min" in c and opset < c["min"]) or ("max" in c and opset > c["max"]):
                return f"opset: the model imports ONNX opset {opset} ({c['reason']})", restriction_hint(c, node)
        elif c["kind"] == "constant_input":
            i = c["input"]
            if i < len(node.inputs) and node.inputs[i].name and not node.inputs[i].constant:
                return f"constant input: input {i} ({c.get('name', '?')}) '{node.inputs[i].name}' is computed in the graph ({c['reason']})", restriction_hint(c, node)
    ti = (res.get("type_inputs") or {}).get(op, 0)
    types = (res.get("types") or {}).get(op)
    if types and ti >= 0 and ti < len(node.inputs):
        inp = node.inputs[ti]
        if inp.dtype and inp.dtype != "DOUBLE" and inp.dtype not in types:
            return (f"dtype: input {ti} '{inp.name}' is {inp.dtype}; TensorRT imports {op} for {', '.join(types)}",
                    f"cast input {ti} to one of {', '.join(types)} before the {op} (or export the model in such a type)")
    return None


def checks_by_op(know: Knowledge) -> dict:
    out: dict = {}
    for c in know.restrictions.get("checks", ()):
        out.setdefault(c["op"], []).append(c)
    return out


def classify(model: ModelDetail, know: Knowledge, problems: Optional[dict] = None, release: Optional[str] = None) -> ModelCoverage:
    """Every node of ``model`` classified against TensorRT ``release`` (default: the knowledge's). ``problems``:
    node logical location -> ["TRT103: message", ...], the findings of check's ONNX and contract rules."""
    problems = problems or {}
    release = release or know.tensorrt
    functions = frozenset(name for _dom, name in model.functions)
    opset = model.opsets.get("")
    notes = list(model.notes)
    rng = know.restrictions.get("opsets") or {}
    if opset is not None and (opset < rng.get("min", opset) or opset > rng.get("max", opset)):
        notes.append(f"opset {opset} is outside the range {rng.get('min')} to {rng.get('max')} the parser's operator list "
                     "documents: a warning, not a failure (ops whose semantics changed may still be restricted)")
    out = ModelCoverage(model.path, opset=opset, notes=tuple(notes), tensorrt=release)
    by_op = checks_by_op(know)
    types = know.restrictions.get("types") or {}
    for n in model.nodes:
        cls, detail, d = _classify_op(n.op_type, n.domain, know, n.attrs, functions, release)
        codes: tuple[str, ...] = ()
        hint = ""
        found = problems.get(n.logical)
        if cls == "builtin":
            broken = restriction_of(n, opset, know, release, by_op) if n.op_type in by_op or n.op_type in types else None
            if broken:
                (cls, detail), hint = ("restricted", broken[0]), broken[1]
        elif cls in ("project", "library"):
            if found:  # a node check reports is never "answered": the creator is found, the node has a problem
                codes = tuple(f.split(":", 1)[0] for f in found)
                cls, detail = "problem", f"{detail}; " + "; ".join(found)
                hint = f"fix what {', '.join(dict.fromkeys(codes))} says (`trtlint rule {codes[0]}` explains the fix)"
        elif cls == "unsupported":
            codes = tuple(f.split(":", 1)[0] for f in found or ())
            hint = next_step(n.op_type, n.domain, n.attrs, d, know, release)
        out.nodes.append(NodeClass(n.logical, n.op_type, n.domain, cls, detail, codes, hint))
    return out


def problems_by_node(diagnostics, model_path: str, model: ModelDetail) -> dict[str, list[str]]:
    """The findings of one model (check's ONNX and contract rules: :func:`trtlint.coverage.runner._findings`), per
    node. A finding names its first node (``logical``) and says how many more it groups: a TRT5xx finding groups
    the nodes of its op_type (its symbol) with that problem, a contract finding (TRT10x) the model's nodes alike
    (the same op_type, domain and attribute names and types: one route), so each is given to the nodes it groups."""
    out: dict[str, list[str]] = {}
    by_op: dict[str, list] = {}
    for n in model.nodes:
        by_op.setdefault(n.op_type, []).append(n)
    by_logical = {n.logical: n for n in model.nodes}
    for d in diagnostics:
        if d.span.path != model_path or not d.logical:
            continue
        text = f"{d.code}: {d.message}"
        targets = [d.logical]
        if "more node" in d.message and d.symbol:
            alike = by_op.get(d.symbol.split(".", 1)[0].split(":", 1)[0], [])  # "Op" or "Op:problem"
            if not d.code.startswith("TRT5"):
                first = by_logical.get(d.logical)
                alike = [n for n in alike if first is not None and _shape(n) == _shape(first)]
            targets = [n.logical for n in alike] or targets
        for t in targets:
            if text not in out.get(t, []):
                out.setdefault(t, []).append(text)
    return out


def _shape(n: NodeDetail) -> tuple:
    return (n.op_type, n.domain, tuple(sorted((k, a[0]) for k, a in n.attrs.items())))


def unchecked_for(report_models: list[ModelCoverage], know: Knowledge) -> list[dict]:
    ops = {n.op_type for m in report_models for n in m.nodes if n.cls in ("builtin", "restricted")}
    return [u for u in know.restrictions.get("unchecked", ()) if u["op"] in ops or u["op"] == "*"]


# ---------------------------------------------------------------------------------------------------------
# rendering


def to_json(report: CoverageReport) -> str:
    return json.dumps(
        {
            "tensorrt": report.tensorrt,
            "project": report.project,
            "totals": report.totals(),
            "models": [
                {
                    "path": m.path,
                    "error": m.error,
                    "skipped": m.skipped,
                    "opset": m.opset,
                    "tensorrt": m.tensorrt,
                    "notes": list(m.notes),
                    "counts": m.counts(),
                    "ops": m.by_op(),
                    "nodes": [
                        {"node": n.logical, "op_type": n.op_type, "domain": n.domain, "class": n.cls, "detail": n.detail,
                         "codes": list(n.codes), **({"hint": n.hint} if n.hint else {})}
                        for n in m.nodes
                    ],
                }
                for m in report.models
            ],
            "unchecked": report.unchecked,
            "failed": report.failed,
        },
        indent=2,
    )


def _counts_line(c: dict) -> str:
    return ", ".join(f"{v} {LABELS[k]}" for k, v in c.items() if v) or "no nodes"


def to_markdown(report: CoverageReport) -> str:
    lines = [f"### trtlint coverage (TensorRT {report.tensorrt})", ""]
    for m in report.models:
        mark = "❌" if m.failed else "✅"
        if m.error:
            lines += [f"**{mark} `{m.path}`**: not read: {m.error}", ""]
            continue
        if m.skipped:
            lines += [f"**➖ `{m.path}`**: not analysed: {m.skipped}", ""]
            continue
        lines += [f"**{mark} `{m.path}`**: {len(m.nodes)} nodes: {_counts_line(m.counts())}", ""]
        lines += [f"> note: {note}" for note in m.notes] + ([""] if m.notes else [])
        lines += ["| op | class | nodes | example | why / where | next step |", "| --- | --- | ---: | --- | --- | --- |"]
        for r in m.by_op():
            op = f"{r['domain']}::{r['op_type']}" if r["domain"] else r["op_type"]
            why = "" if r["class"] == "builtin" else r["detail"].replace("|", "\\|")
            hint = r.get("hint", "").replace("|", "\\|")
            lines.append(f"| `{op}` | {LABELS[r['class']]} | {r['count']} | `{r['example']}` | {why} | {hint} |")
        lines.append("")
    if report.unchecked:
        lines.append("<details><summary>restrictions not checked statically</summary>\n")
        lines += [f"- {u['op']}: {u['what']}" for u in report.unchecked]
        lines.append("\n</details>")
    return "\n".join(lines) + "\n"


def render_text(report: CoverageReport, console) -> None:
    from rich.table import Table

    styles = {"builtin": "green", "function": "green", "project": "cyan", "library": "cyan",
              "restricted": "yellow", "problem": "red", "unsupported": "red bold"}
    for m in report.models:
        if m.error:
            console.print(f"[red]{m.path}[/red]: not read: {m.error}")
            continue
        if m.skipped:
            console.print(f"[cyan]{m.path}[/cyan]: not analysed: {m.skipped}")
            continue
        t = Table(title=f"{m.path} ({len(m.nodes)} nodes, opset {m.opset}, TensorRT {m.tensorrt})", title_justify="left", expand=False)
        for col in ("op", "class", "nodes", "example node", "why / where", "next step"):
            t.add_column(col, overflow="fold")
        for r in m.by_op():
            op = f"{r['domain']}::{r['op_type']}" if r["domain"] else r["op_type"]
            why = "" if r["class"] == "builtin" else r["detail"]
            t.add_row(op, f"[{styles[r['class']]}]{LABELS[r['class']]}[/]", str(r["count"]), r["example"], why, r.get("hint", ""))
        console.print(t)
        for note in m.notes:
            console.print(f"  note: {note}")
        console.print(f"  {_counts_line(m.counts())}")
    tot = report.totals()
    console.print(f"{len(report.models)} model(s), {sum(tot.values())} nodes: {_counts_line(tot)} (TensorRT {report.tensorrt})")
    if report.unchecked:
        console.print(f"not checked statically: {'; '.join(u['op'] + ': ' + u['what'] for u in report.unchecked)}", style="dim")


def hover_text(index, rel: str, line: int) -> Optional[str]:
    """What the language server shows on a node-emitting Python line (``g.op``, onnxscript, ``make_node``): how
    TensorRT's ONNX parser would take the node it emits, from the same :func:`classify_op` (1-based ``line``)."""
    if index is None:
        return None
    ems = [e for e in index.emissions if e.span.path == rel and e.span.line <= line <= max(e.span.end_line, e.span.line)]
    if not ems:
        return None
    know = index.__dict__.get("_coverage_knowledge")
    if know is None:
        know = index.__dict__["_coverage_knowledge"] = knowledge_of(index)
    parts = []
    for e in ems:
        attrs = {}
        if e.plugin_version is not None:
            attrs["plugin_version"] = ("STRING", e.plugin_version)
        if e.plugin_namespace is not None:
            attrs["plugin_namespace"] = ("STRING", e.plugin_namespace)
        cls, detail = classify_op(e.op_type, e.domain or "", know, attrs, release=release_of(index, rel))
        op = f"{e.domain}::{e.op_type}" if e.domain else e.op_type
        parts.append(f"**TensorRT ONNX parser** — `{op}`: {LABELS[cls]}" + ("" if cls == "builtin" else f": {detail}"))
    return "\n\n".join(parts)
