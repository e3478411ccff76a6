"""``trtlint confirm``: take findings to a machine with TensorRT and a GPU and show, per finding, whether
TensorRT really fails the way the rule says.

For every finding it writes a small self-contained repro folder (``model.onnx`` built with ``onnx.helper``,
``repro.py``, ``README.md``, ``result.json``) and, when what the recipe needs is present, runs ``repro.py`` in
a subprocess with a timeout. Each finding ends ``confirmed``, ``not-reproduced``, ``inconclusive`` (reason) or
``skipped`` (what was missing). See docs/confirm.md.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from trtlint.base.diagnostics import Diagnostic
from . import model as _model
from .compile import CompileResult, compile_tu
from .recipes import EXPECT, GPU, PLUGIN_LIB, SHAPES, TENSORRT, Recipe, recipe_for
from .runner import Environment, Outcome, run_script
from .scripts import render
from .subject import Subject, Unresolved, resolve

__all__ = ["ConfirmOptions", "FindingResult", "confirm_findings", "STATUSES"]

STATUSES = ("confirmed", "not-reproduced", "inconclusive", "skipped")

_MISSING = {TENSORRT: "no tensorrt", GPU: "no GPU", PLUGIN_LIB: "no plugin library", SHAPES: "no input shapes"}


@dataclass
class ConfirmOptions:
    out_dir: Path
    plugin_lib: Optional[Path] = None
    model: Optional[Path] = None  # an exported model containing the flagged nodes
    plugin_config: dict = field(default_factory=dict)  # per-plugin input specs
    plugin_config_origin: str = ""
    timeout: float = 300.0
    trt_include: Optional[Path] = None  # TensorRT include/ for the nvcc compile step
    extra_includes: list = field(default_factory=list)
    compile_timeout: float = 300.0
    run: bool = True  # run the repros (False: write them only)


@dataclass
class FindingResult:
    finding: Diagnostic
    status: str
    reason: str
    recipe: Optional[str] = None
    folder: Optional[Path] = None
    subject: Optional[Subject] = None
    outcome: Optional[Outcome] = None
    compile: list = field(default_factory=list)  # CompileResult

    def to_dict(self, root: Optional[Path] = None) -> dict:
        d = {
            "finding": self.finding.to_dict(),
            "status": self.status,
            "reason": self.reason,
            "recipe": self.recipe,
            "repro": str(self.folder) if self.folder else None,
        }
        if self.compile:
            d["compile"] = [c.to_dict() for c in self.compile]
        if self.outcome is not None:
            d["run"] = self.outcome.to_dict()
        return d

    @property
    def label(self) -> str:
        return f"{self.status} ({self.reason})" if self.reason and self.status in ("inconclusive", "skipped") else self.status


def _defines(index, src: str) -> tuple:
    """The macros the analysis defines: the profile's and the config's `defines`, and the optional-feature
    macros (profile `feature_macros`) the file tests, which the production build defines. So the compile
    sees the code the finding is in, not a fallback stub."""
    from trtlint.store.scancache import feature_macros
    from ..frontends import SourceFile

    out = list(getattr(index.profile, "defines", ()) or ())
    out += list(getattr(index.settings, "defines", ()) or ()) if index.settings is not None else []
    pats = getattr(index.profile, "feature_macros", ())
    if pats:
        kind = "cuda" if src.endswith(".cu") else "cpp"
        out += feature_macros([SourceFile(index.root / src, src, kind, "")], pats)
    return tuple(dict.fromkeys(out))


def _changed(v):
    """Another value of the same attribute type (for the serialize-roundtrip variant model)."""
    if isinstance(v, bool):
        return int(not v)
    if isinstance(v, int):
        return v + 1
    if isinstance(v, float):
        return v * 2.0 + 1.0
    if isinstance(v, list) and v and isinstance(v[0], (int, float)):
        return [_changed(v[0])] + v[1:]
    return None


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:48] or "finding"


def _node_io(subject: Subject, opts: ConfirmOptions) -> _model.NodeIO:
    if subject.name and opts.model is not None:
        io = _model.io_from_model(opts.model, subject.name, subject.domain)
        if io is not None:
            return io
    if subject.name and opts.plugin_config:
        io = _model.io_from_config(opts.plugin_config, subject.name, opts.plugin_config_origin)
        if io is not None:
            return io
    return _model.default_io()


def _node_attrs(subject: Subject, io: _model.NodeIO) -> tuple[dict, dict]:
    """(attributes of the repro node, where each value came from)."""
    attrs: dict = {}
    prov: dict = {}
    for a in subject.attrs:
        v, where = _model.attr_value(a, io.node_attrs)
        attrs[a.name] = v
        prov[a.name] = where
    for k, v in io.node_attrs.items():  # the exported node's own attributes win and complete the list
        if k not in ("plugin_version", "plugin_namespace"):
            attrs[k] = v
            prov[k] = "exported model"
    if subject.version is not None:
        attrs["plugin_version"] = subject.version
        prov["plugin_version"] = "the route" if subject.kind == "route" else "the creator"
    if subject.namespace is not None:
        attrs["plugin_namespace"] = subject.namespace
        prov["plugin_namespace"] = "the route" if subject.kind == "route" else "the creator"
    return attrs, prov


def _repro_config(d: Diagnostic, recipe: Recipe, subject: Subject, attrs: dict, opts: ConfirmOptions) -> dict:
    cfg: dict = {
        "finding": {"code": d.code, "message": d.message, "at": f"{d.span.path}:{d.span.line}"},
        "recipe": recipe.name,
        "expect": EXPECT.get(d.code.upper(), "the failure the rule describes"),
        "plugin_lib": str(opts.plugin_lib.resolve()) if opts.plugin_lib else "",
    }
    if recipe.name == "library-symbols":
        cfg.update(file=subject.sources[0] if subject.sources else d.span.path, symbols=subject.symbols)
        return cfg
    cfg.update(name=subject.name, version=subject.version, namespace=subject.namespace, node_attributes=attrs)
    c = subject.creator
    if c is not None and c.name is not None:
        cfg["project_creator"] = [c.name, c.version, c.namespace]
    if recipe.name == "attribute-fields":
        cfg["attribute"] = subject.flagged_attr
    if recipe.name == "serialize-roundtrip":
        cfg["field"] = subject.flagged_attr
    if recipe.name == "graph-capture":
        cfg["plugin_class"] = subject.plugin_class
        cfg["hot_call"] = subject.hot_call
    return cfg


def _readme(d: Diagnostic, recipe: Recipe, subject: Subject, io: Optional[_model.NodeIO], prov: dict,
            model_note: str, result: "FindingResult") -> str:
    lines = [
        f"# {d.code} {d.name}: {subject.name or d.span.path}",
        "",
        f"trtlint reported at `{d.span.path}:{d.span.line}`:",
        "",
        f"> {d.message}",
        "",
        "## What this repro shows",
        "",
        f"Recipe `{recipe.name}`: it {recipe.what}.",
        "",
        f"If the finding is real: {EXPECT.get(d.code.upper(), 'TensorRT fails the way the rule describes')}.",
        "",
        "## How to run",
        "",
        "```sh",
        "python3 repro.py /path/to/libyour_plugins.so    # or: TRTLINT_PLUGIN_LIB=... python3 repro.py",
        "```",
        "",
        "Needs: " + ", ".join(recipe.needs) + ". It prints one line `TRTLINT-CONFIRM-RESULT {json}` with the "
        "status (`confirmed`, `not-reproduced`, `inconclusive`, `skipped`) and exits 0; a crash or a hang "
        "is itself a result (trtlint runs it in a subprocess with a timeout).",
    ]
    if io is not None and recipe.name != "library-symbols":
        lines += ["", "## The model", ""]
        lines.append(f"`model.onnx`: one node `{subject.name}` built with `onnx.helper` (valid under `onnx.checker`).")
        if io.source == "none":
            lines.append("Inputs: no exported model (`--model`) or per-plugin config (`--inputs`) names this plugin, "
                         "so one float32 input of symbolic shape: enough for a creator lookup and a parse, not for an "
                         "engine build.")
        else:
            lines.append(f"Inputs from {io.source}:")
        for t in io.inputs:
            lines.append(f"- `{t.name}`: {t.dtype}{list(t.shape) if t.shape is not None else '[?]'}" + (" (constant)" if t.data is not None else ""))
        if prov:
            lines.append("")
            lines.append("Attributes: " + "; ".join(f"`{k}` from {v}" for k, v in prov.items()) + ".")
        if model_note:
            lines += ["", model_note]
        if (result.folder / "model_field_changed.onnx").is_file() if result.folder else False:
            lines += ["", f"`model_field_changed.onnx`: the same node with `{subject.flagged_attr}` changed, to see "
                      "whether its value survives serialization."]
    lines += ["", "## Result when generated", "", f"`{result.label}`" + (f": {result.reason}" if result.status in ("confirmed", "not-reproduced") and result.reason else "")]
    if result.compile:
        lines += ["", "nvcc compile of the flagged translation units against the TensorRT headers:"]
        for c in result.compile:
            lines.append(f"- `{c.path}`: {'compiles' if c.ok else 'does not compile'} ({c.seconds:.1f} s)" + ("" if c.ok else ": " + "; ".join(c.errors[:2])))
    return "\n".join(lines) + "\n"


def confirm_findings(diags: list[Diagnostic], index, opts: ConfirmOptions, env: Environment) -> list[FindingResult]:
    opts.out_dir.mkdir(parents=True, exist_ok=True)
    ignore = opts.out_dir / ".gitignore"
    if not ignore.exists():  # repro models and scripts are output, not project sources for the next check
        ignore.write_text("# written by trtlint confirm\n*\n", encoding="utf-8")
    compiled: dict[str, CompileResult] = {}
    results: list[FindingResult] = []
    for i, d in enumerate(diags, 1):
        try:
            results.append(_confirm_one(i, d, index, opts, env, compiled))
        except Exception as e:  # noqa: BLE001 - one finding's repro must not stop the others
            results.append(FindingResult(d, "inconclusive", f"the repro could not be prepared: {type(e).__name__}: {e}"))
    return results


def _confirm_one(i: int, d: Diagnostic, index, opts: ConfirmOptions, env: Environment, compiled: dict) -> FindingResult:
    recipe = recipe_for(d.code)
    if recipe is None:
        return FindingResult(d, "skipped", f"no confirm recipe for {d.code} ({d.name}): nothing TensorRT can run shows it")
    try:
        subject = resolve(d, index)
    except Unresolved as e:
        return FindingResult(d, "inconclusive", f"the finding does not match the current source: {e}", recipe.name)
    if recipe.name != "library-symbols" and not subject.name:
        return FindingResult(d, "inconclusive", "the plugin name is not known statically", recipe.name, subject=subject)
    folder = opts.out_dir / f"{i:03d}-{d.code}-{_slug(d.symbol or subject.name or Path(d.span.path).name)}"
    folder.mkdir(parents=True, exist_ok=True)
    res = FindingResult(d, "skipped", "", recipe.name, folder, subject)

    io = None
    variant = None
    prov: dict = {}
    model_note = ""
    attrs: dict = {}
    if recipe.name != "library-symbols":
        try:
            io = _node_io(subject, opts)
        except Exception as e:  # noqa: BLE001 - an unreadable --model is reported on the finding
            res.status, res.reason = "inconclusive", f"the exported model could not be read: {e}"
            _write_result(folder, res)
            return res
        attrs, prov = _node_attrs(subject, io)
        if subject.domain in (None, "", "ai.onnx"):
            model_note = (f"The project emits the node in the default ONNX domain; here it is in domain "
                          f"`{_model.REPRO_DOMAIN}` so that `onnx.checker` accepts the model. TensorRT's ONNX parser "
                          "picks the plugin importer by op_type, so the lookup is the same.")
        m = _model.build_model(subject.name, subject.domain, attrs, io)
        _model.check_model(m)
        (folder / "model.onnx").write_bytes(m.SerializeToString())
        if recipe.name == "serialize-roundtrip" and subject.flagged_attr in attrs:
            other = _changed(attrs[subject.flagged_attr])
            if other is not None:  # the same model with the flagged field's value changed
                m2 = _model.build_model(subject.name, subject.domain, {**attrs, subject.flagged_attr: other}, io)
                _model.check_model(m2)
                (folder / "model_field_changed.onnx").write_bytes(m2.SerializeToString())
                variant = (attrs[subject.flagged_attr], other)

    if opts.trt_include is not None:
        for src in subject.sources:
            if src not in compiled:
                compiled[src] = compile_tu(index.root, src, opts.trt_include, opts.extra_includes, opts.compile_timeout,
                                           defines=_defines(index, src))
            res.compile.append(compiled[src])

    cfg = _repro_config(d, recipe, subject, attrs, opts)
    if variant is not None:
        cfg["value"], cfg["changed_value"] = variant
    script = render(recipe.name, cfg, title=f"{d.code} {d.name}: {d.message[:200]}", code=d.code, name=d.name,
                    where=f"{d.span.path}:{d.span.line}")
    (folder / "repro.py").write_text(script, encoding="utf-8")

    have = {
        TENSORRT: env.tensorrt is not None,
        GPU: env.gpus > 0,
        PLUGIN_LIB: opts.plugin_lib is not None and opts.plugin_lib.is_file(),
        SHAPES: io is not None and io.has_shapes,
    }
    missing = [n for n in recipe.needs if not have[n]]
    if missing:
        res.status, res.reason = "skipped", ", ".join(_MISSING[n] for n in missing)
    elif not opts.run:
        res.status, res.reason = "skipped", "--no-run"
    else:
        res.outcome = run_script(folder / "repro.py", [str(opts.plugin_lib.resolve())], timeout=opts.timeout)
        res.status, res.reason = res.outcome.status, res.outcome.reason
    (folder / "README.md").write_text(_readme(d, recipe, subject, io, prov, model_note, res), encoding="utf-8")
    _write_result(folder, res)
    return res


def _write_result(folder: Path, res: FindingResult) -> None:
    (folder / "result.json").write_text(json.dumps(res.to_dict(), indent=2, default=str) + "\n", encoding="utf-8")
