"""The GitLab Code Quality reporter: a JSON array of issues (a subset of the Code Climate spec that GitLab reads).

Each issue: ``description``, ``check_name`` (the rule code), ``fingerprint`` (unique per issue in the report,
stable across line moves), ``severity`` (``info`` | ``minor`` | ``major`` | ``critical`` | ``blocker``) and
``location`` (``path`` relative to the project root, ``lines.begin``/``lines.end``).
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from trtlint.base.diagnostics import Diagnostic
    from .context import ReportContext

_SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def build_gitlab(diags: "list[Diagnostic]", ctx: "ReportContext") -> list[dict]:
    out = []
    seen: dict[str, int] = {}
    for d in diags:
        fp = d.fingerprint
        n = seen.get(fp, 0)
        seen[fp] = n + 1
        if n:  # the same finding twice in a file (e.g. two identical calls): GitLab needs distinct fingerprints
            fp = hashlib.sha256(f"{fp}\0{n}".encode()).hexdigest()[:32]
        desc = f"[{d.logical}] {d.message}" if d.logical else d.message
        out.append(
            {
                "type": "issue",
                "check_name": d.code,
                "description": f"{d.code} {d.name}: {desc}",
                "categories": ["Bug Risk"],
                "severity": _SEVERITY.get(d.severity.value, "minor"),
                "fingerprint": fp,
                "location": {
                    "path": d.span.path,
                    "lines": {"begin": max(1, d.span.line), "end": max(1, d.span.end_line or d.span.line)},
                },
            }
        )
    return out


def render_gitlab(diags: "list[Diagnostic]", ctx: "ReportContext") -> str:
    return json.dumps(build_gitlab(diags, ctx), indent=2, ensure_ascii=False) + "\n"
