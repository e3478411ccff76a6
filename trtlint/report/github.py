"""The GitHub Actions reporter: one workflow command (``::error``/``::warning``/``::notice``) per diagnostic."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .context import is_opaque

if TYPE_CHECKING:  # pragma: no cover
    from trtlint.base.diagnostics import Diagnostic
    from .context import ReportContext

_LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(s: str) -> str:
    """Escape a command's message (as @actions/core ``escapeData`` does)."""
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    """Escape a command property value (as @actions/core ``escapeProperty`` does)."""
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def _loc(span) -> str:
    return f"{span.path}:{span.line}:{span.col}"


def format_command(d: "Diagnostic") -> str:
    level = _LEVELS.get(d.severity.value, "warning")
    s = d.span
    props: list[tuple[str, str]] = [("file", s.path)]
    if not is_opaque(d):
        props.append(("line", str(max(1, s.line))))
        props.append(("col", str(max(1, s.col))))
        props.append(("endLine", str(max(1, s.end_line))))
        if s.end_line == s.line:  # GitHub only honours columns on single-line annotations
            props.append(("endColumn", str(max(1, s.end_col))))
    props.append(("title", f"{d.code} {d.name}"))

    lines = [f"[{d.logical}] {d.message}" if d.logical else d.message]
    for r in d.related:
        lines.append(f"related: {_loc(r.span)}: {r.message}")
    for n in d.notes:
        lines.append(f"note: {n}")
    if d.fix is not None:
        lines.append(f"fix available ({d.fix.applicability}): {d.fix.message}")
    prop_s = ",".join(f"{k}={escape_property(v)}" for k, v in props)
    return f"::{level} {prop_s}::{escape_data(chr(10).join(lines))}"


def render_github(diags: "list[Diagnostic]", ctx: "ReportContext") -> str:
    return "".join(format_command(d) + "\n" for d in diags)
