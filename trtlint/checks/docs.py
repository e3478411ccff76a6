"""A rule's documentation, rendered from the rule class itself (its docstring headings and fields), for the
CLI (``trtlint rule``, ``trtlint rules``), the LSP hover and ``docs/rules/`` (``python -m trtlint.cli.docsgen``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .base import Rule


def rule_json(r: "type[Rule]") -> dict:
    """A rule as `trtlint rules --format json` and `trtlint rule --format json` print it."""
    return {
        "code": r.code,
        "name": r.name,
        "family": r.family,
        "severity": r.severity.value,
        "fixable": r.fixable,
        "default": r.default,  # in the default rule set (runs unless the config selects otherwise)
        "summary": r.summary(),
        "doc": r.doc(),
        "help_uri": r.help_uri() or None,  # null unless $TRTLINT_DOCS_URL is set
    }


def default_text(r: "type[Rule]") -> str:
    """Whether a rule is in the default set, and how to turn an opt-in rule on."""
    if r.default:
        return "on by default"
    why = f" ({r.opt_in_why})" if r.opt_in_why else ""
    return f'opt-in: not in the default set{why}; enable with `extend-select = ["{r.code}"]`'


def rule_markdown(r: "type[Rule]") -> str:
    """A rule's page: `trtlint rule --format markdown`, the LSP hover, the head of ``docs/rules/TRTxxx.md``."""
    sec = r.sections()
    parts = [f"# {r.code} {r.name}", "", sec.get("summary", ""), ""]
    parts.append(f"Default severity: **{r.severity.value}** · family: `{r.family}` · fixable: {'yes' if r.fixable else 'no'}"
                 f" · {default_text(r)}")
    for head in ("What it does", "Why it matters", "Example", "Fix"):
        if head in sec:
            parts += ["", f"## {head}", "", sec[head]]
    return "\n".join(parts).rstrip() + "\n"
