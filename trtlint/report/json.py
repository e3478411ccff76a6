"""The JSON reporter: a documented, versioned object (see docs/output-formats.md)."""

from __future__ import annotations

import json as _json
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from trtlint.base.diagnostics import Diagnostic
    from .context import ReportContext

#: Bump when the shape of the JSON output changes incompatibly.
JSON_FORMAT_VERSION = 1


def build_json(diags: "list[Diagnostic]", ctx: "ReportContext") -> dict:
    by_sev = {"error": 0, "warning": 0, "info": 0}
    for d in diags:
        by_sev[d.severity.value] = by_sev.get(d.severity.value, 0) + 1
    rule_counts = Counter(d.code for d in diags)
    return {
        "version": JSON_FORMAT_VERSION,
        "tool": {"name": "trtlint", "version": ctx.tool_version},
        "project": ctx.project(),
        "summary": {
            "files_checked": ctx.files_checked,
            "findings": len(diags),
            "by_severity": by_sev,
            "by_rule": {code: rule_counts[code] for code in sorted(rule_counts)},
            **({"analysis": ctx.analysis.to_dict()} if ctx.analysis is not None else {}),
            # the TensorRT release judged against and why ({version, source, reason, others[, programs]})
            **({"tensorrt_version": ctx.analysis.tensorrt}
               if ctx.analysis is not None and ctx.analysis.tensorrt is not None else {}),
        },
        "diagnostics": [d.to_dict() for d in diags],
    }


def render_json(diags: "list[Diagnostic]", ctx: "ReportContext") -> str:
    return _json.dumps(build_json(diags, ctx), indent=2, sort_keys=False, ensure_ascii=False) + "\n"
