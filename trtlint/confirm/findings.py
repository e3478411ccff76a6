"""Findings to confirm: read back from trtlint's JSON or SARIF output, as :class:`Diagnostic` objects."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from trtlint.base.facts import Span


class FindingsError(Exception):
    """The --from file could not be read as trtlint JSON or SARIF output."""


def _span(loc: dict) -> Span:
    return Span(
        str(loc.get("path", "")),
        int(loc.get("line") or 1),
        int(loc.get("column") or 1),
        int(loc.get("end_line") or 0),
        int(loc.get("end_column") or 0),
    )


def _severity(v: str) -> Severity:
    v = {"note": "info", "none": "info"}.get(v, v)
    try:
        return Severity(v)
    except ValueError:
        return Severity.WARNING


def from_json(data: dict) -> list[Diagnostic]:
    out = []
    for d in data.get("diagnostics", []):
        out.append(
            Diagnostic(
                code=d["code"],
                name=d.get("name", ""),
                severity=_severity(d.get("severity", "warning")),
                message=d.get("message", ""),
                span=_span(d.get("location", {})),
                related=tuple(Related(_span(r.get("location", {})), r.get("message", "")) for r in d.get("related", [])),
                symbol=d.get("symbol", ""),
                logical=d.get("logical_location"),
                notes=tuple(d.get("notes", ())),
            )
        )
    return out


def _sarif_span(loc: dict) -> Span:
    phys = loc.get("physicalLocation", {})
    uri = unquote(phys.get("artifactLocation", {}).get("uri", ""))
    reg = phys.get("region", {})
    line = int(reg.get("startLine") or 1)
    return Span(uri, line, int(reg.get("startColumn") or 1), int(reg.get("endLine") or line), int(reg.get("endColumn") or 0))


def from_sarif(data: dict) -> list[Diagnostic]:
    out = []
    for run in data.get("runs", []):
        rules = run.get("tool", {}).get("driver", {}).get("rules", [])
        for r in run.get("results", []):
            idx = r.get("ruleIndex")
            name = rules[idx].get("name", "") if isinstance(idx, int) and 0 <= idx < len(rules) else ""
            locs = r.get("locations") or [{}]
            logical = next((ll.get("fullyQualifiedName") for ll in locs[0].get("logicalLocations", [])), None)
            props = r.get("properties", {})
            out.append(
                Diagnostic(
                    code=r.get("ruleId", ""),
                    name=name,
                    severity=_severity(r.get("level", "warning")),
                    message=r.get("message", {}).get("text", ""),
                    span=_sarif_span(locs[0]),
                    related=tuple(
                        Related(_sarif_span(rl), rl.get("message", {}).get("text", "")) for rl in r.get("relatedLocations", [])
                    ),
                    symbol=props.get("symbol", ""),
                    logical=logical,
                    notes=tuple(props.get("notes", ())),
                )
            )
    return out


def load_findings(path: Path) -> list[Diagnostic]:
    """Findings from ``trtlint check --format json`` or ``--format sarif`` output."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise FindingsError(f"{path}: cannot read: {e}") from None
    except json.JSONDecodeError as e:
        raise FindingsError(f"{path}: not JSON ({e.msg} at line {e.lineno})") from None
    if not isinstance(data, dict):
        raise FindingsError(f"{path}: expected a JSON object (trtlint JSON or SARIF output)")
    if "runs" in data:
        return from_sarif(data)
    if "diagnostics" in data:
        return from_json(data)
    raise FindingsError(f"{path}: neither trtlint JSON output (no 'diagnostics') nor SARIF (no 'runs')")
