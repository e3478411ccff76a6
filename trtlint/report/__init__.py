"""Reporters: turn sorted, filtered diagnostics into text, JSON, SARIF, GitHub workflow commands, GitLab Code
Quality JSON or JUnit XML.

Reporters are pure: they read diagnostics (and, for SARIF, rule metadata) and return a string. The CLI
writes it. They never touch a parser or the project index.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .context import ReportContext, is_opaque

if TYPE_CHECKING:  # pragma: no cover
    from trtlint.base.diagnostics import Diagnostic

FORMATS = ("text", "json", "sarif", "github", "gitlab", "junit")


def render(fmt: str, diags: "list[Diagnostic]", ctx: ReportContext) -> str:
    """Render ``diags`` in format ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "text":
        from .text import render_text

        return render_text(diags, ctx)
    if fmt == "json":
        from .json import render_json

        return render_json(diags, ctx)
    if fmt == "sarif":
        from .sarif import render_sarif

        return render_sarif(diags, ctx)
    if fmt == "github":
        from .github import render_github

        return render_github(diags, ctx)
    if fmt == "gitlab":
        from .gitlab import render_gitlab

        return render_gitlab(diags, ctx)
    if fmt == "junit":
        from .junit import render_junit

        return render_junit(diags, ctx)
    raise ValueError(f"unknown output format {fmt!r}; expected one of {', '.join(FORMATS)}")


__all__ = ["FORMATS", "ReportContext", "render", "is_opaque"]
