"""The SARIF 2.1.0 reporter (see docs/output-formats.md for the mapping)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from .. import project_url
from .context import is_opaque

if TYPE_CHECKING:  # pragma: no cover
    from trtlint.base.diagnostics import Diagnostic
    from trtlint.base.span import Span
    from .context import ReportContext

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "trtlint/v1"

_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def sarif_level(severity: Any) -> str:
    return _LEVELS.get(getattr(severity, "value", str(severity)), "warning")


def root_uri(root: Path) -> str:
    """``root`` as an absolute ``file://`` URI ending in '/' (SARIF requires the trailing slash)."""
    uri = Path(root).resolve().as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _uri(path: str) -> str:
    return quote(path.replace("\\", "/"), safe="/-._~!$&'()*+,;=@")


def _region(span: "Span") -> dict:
    start_line = max(1, span.line)
    start_col = max(1, span.col)
    end_line = max(start_line, span.end_line)
    end_col = max(1, span.end_col)
    if end_line == start_line:
        end_col = max(end_col, start_col)
    return {"startLine": start_line, "startColumn": start_col, "endLine": end_line, "endColumn": end_col}


def _text(s: str, fallback: str) -> str:
    s = (s or "").strip()
    return s if s else fallback


def rule_descriptor(rule: Any) -> dict:
    """A ``reportingDescriptor`` for a Rule class."""
    doc = rule.doc() if hasattr(rule, "doc") else ""
    summary = rule.summary() if hasattr(rule, "summary") else ""
    try:
        full = rule.sections().get("What it does", "") if hasattr(rule, "sections") else ""
    except Exception:  # pragma: no cover - a malformed docstring must not break the report
        full = ""
    name = getattr(rule, "name", "") or rule.code
    short = _text(summary, name)
    desc: dict = {
        "id": rule.code,
        "name": name,
        "shortDescription": {"text": short},
        "fullDescription": {"text": _text(full, short)},
        "help": {"text": _text(doc, short), "markdown": _text(doc, short)},
        "defaultConfiguration": {"level": sarif_level(getattr(rule, "severity", "warning"))},
        "properties": {"tags": [rule.family] if getattr(rule, "family", "") else []},
    }
    uri = rule.help_uri() if hasattr(rule, "help_uri") else ""
    if uri:
        desc["helpUri"] = uri
    if getattr(rule, "fixable", False):
        desc["properties"]["fixable"] = True
    return desc


def _fallback_descriptor(d: "Diagnostic") -> dict:
    """A descriptor for a code that reached the report without an enabled Rule class (e.g. internal errors)."""
    return {
        "id": d.code,
        "name": d.name or d.code,
        "shortDescription": {"text": d.name or d.code},
        "defaultConfiguration": {"level": sarif_level(d.severity)},
        "properties": {"tags": []},
    }


class _Artifacts:
    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.items: list[dict] = []

    def location(self, path: str) -> dict:
        if path not in self.index:
            self.index[path] = len(self.items)
            self.items.append({"location": {"uri": _uri(path), "uriBaseId": SRCROOT}})
        return {"uri": _uri(path), "uriBaseId": SRCROOT, "index": self.index[path]}


def _physical(span: "Span", arts: _Artifacts, with_region: bool = True) -> dict:
    loc: dict = {"artifactLocation": arts.location(span.path)}
    if with_region:
        loc["region"] = _region(span)
    return loc


def _result(d: "Diagnostic", rule_index: int, arts: _Artifacts) -> dict:
    opaque = is_opaque(d)
    location: dict = {"physicalLocation": _physical(d.span, arts, with_region=not opaque)}
    if d.logical:
        location["logicalLocations"] = [
            {"name": d.logical.rstrip("/").rsplit("/", 1)[-1] or d.logical, "fullyQualifiedName": d.logical}
        ]
    res: dict = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": sarif_level(d.severity),
        "message": {"text": _text(d.message, d.name or d.code)},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT_KEY: d.fingerprint},
    }
    if d.related:
        res["relatedLocations"] = [
            {"id": i, "physicalLocation": _physical(r.span, arts), "message": {"text": _text(r.message, "related")}}
            for i, r in enumerate(d.related)
        ]
    if d.fix is not None and d.fix.edits:
        changes: dict[str, list[dict]] = {}
        for e in d.fix.edits:
            changes.setdefault(e.span.path, []).append(
                {"deletedRegion": _region(e.span), "insertedContent": {"text": e.text}}
            )
        fix: dict = {
            "artifactChanges": [
                {"artifactLocation": arts.location(path), "replacements": reps} for path, reps in changes.items()
            ],
            "properties": {"applicability": d.fix.applicability},
        }
        if d.fix.message:
            fix["description"] = {"text": d.fix.message}
        res["fixes"] = [fix]
    props: dict = {}
    if d.symbol:
        props["symbol"] = d.symbol
    if d.notes:
        props["notes"] = list(d.notes)
    if props:
        res["properties"] = props
    return res


def _invocation(ctx: "ReportContext", arts: _Artifacts) -> dict:
    """The run's invocation: it succeeded (findings are results, not failures); what it analysed in its
    properties, and one warning notification per C++ unit it could analyse only partly, located at the
    first ``#include`` that did not resolve in it."""
    inv: dict = {"executionSuccessful": True, "properties": {"filesChecked": ctx.files_checked}}
    a = ctx.analysis
    if a is None:
        return inv
    inv["properties"]["analysis"] = {"plugins": a.plugins, "creators": a.creators, "targets": a.targets,
                                     "partlyAnalysedUnits": len(a.partly), "missingIncludes": a.missing_names()}
    notes = []
    for unit, missing in a.partly:
        names = list(dict.fromkeys(n for n, _p, _l in missing))
        _n, path, line = missing[0]
        notes.append({
            "level": "warning",
            "message": {"text": f"{unit} was analysed only partly: not found: {', '.join(names)}; add the "
                                "directories to `include-dirs` or give `compile-commands`"},
            "locations": [{"physicalLocation": {"artifactLocation": arts.location(path),
                                                "region": {"startLine": max(line, 1)}}}],
            "descriptor": {"id": "TRT004"},
        })
    if notes:
        inv["toolExecutionNotifications"] = notes
    return inv


def build_sarif(diags: "list[Diagnostic]", ctx: "ReportContext") -> dict:
    rules = [rule_descriptor(r) for r in ctx.rules]
    index = {r["id"]: i for i, r in enumerate(rules)}
    for d in diags:
        if d.code not in index:
            index[d.code] = len(rules)
            rules.append(_fallback_descriptor(d))
    arts = _Artifacts()
    results = [_result(d, index[d.code], arts) for d in diags]
    run: dict = {
        "tool": {
            "driver": {
                "name": "trtlint",
                "version": ctx.tool_version,
                "semanticVersion": ctx.tool_version,
                **({"informationUri": project_url()} if project_url() else {}),  # none invented: $TRTLINT_PROJECT_URL
                "rules": rules,
            }
        },
        "invocations": [_invocation(ctx, arts)],
        "originalUriBaseIds": {SRCROOT: {"uri": root_uri(ctx.root)}},
        "artifacts": arts.items,
        "columnKind": "unicodeCodePoints",
        "results": results,
        "properties": {"project": ctx.project(),
                       # the TensorRT release judged against and why ({version, source, reason, others[, programs]})
                       **({"tensorrtVersion": ctx.analysis.tensorrt}
                          if ctx.analysis is not None and ctx.analysis.tensorrt is not None else {})},
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def render_sarif(diags: "list[Diagnostic]", ctx: "ReportContext") -> str:
    return json.dumps(build_sarif(diags, ctx), indent=2, ensure_ascii=False) + "\n"
