"""The text reporter: ruff-like, human readable; plain text, or rendered with rich in colour.

::

    cpp/plugins/foo/foo.cpp:12:5: error[TRT101] plugin-name-mismatch: message
       |
    11 |     ...
    12 |     return _trt.FooPlugn(x, alpha=a)
       |            ^^^^^^^^^^^^^^
    13 |     ...
       = related: cpp/plugins/foo/foo.cpp:40:12: creator registers 'FooPlugin'
             40 |     static const char* kNAME = "FooPlugin";
                |            ^^^^^

    Found 1 problem (1 error, 0 warnings, 0 info) in 3 files checked (0.42 s).
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from trtlint.base import safeio
from .context import is_opaque

if TYPE_CHECKING:  # pragma: no cover
    from trtlint.base.diagnostics import Diagnostic
    from trtlint.base.span import Span
    from .context import ReportContext

TAB = 4
WIDTH = 240

_SEV_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold cyan"}
_GUTTER = "bold blue"


class _Sources:
    """Reads and caches project files; ``None`` for files that are missing, unreadable or binary."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._cache: dict[str, Optional[list[str]]] = {}

    def lines(self, rel: str) -> Optional[list[str]]:
        if rel not in self._cache:
            text: Optional[str]
            # through the guarded reader: never a link (not even one inside the root), a FIFO or a device,
            # never past the frame limit (a skipped file's finding has no frame)
            data = safeio.try_read_bytes(self.root / rel, root=self.root, limit=safeio.FRAME_LIMIT)
            text = None if data is None or b"\0" in data[:8192] else data.decode("utf-8", errors="replace")
            self._cache[rel] = text.splitlines() if text is not None else None
        return self._cache[rel]


def _plural(n: int, word: str, plural: Optional[str] = None) -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def location_str(span: "Span", logical: Optional[str] = None, opaque: bool = False) -> str:
    if opaque:
        return f"{span.path} [{logical}]"
    loc = f"{span.path}:{span.line}:{span.col}"
    return f"{loc} [{logical}]" if logical else loc


def _caret_range(line: str, span: "Span") -> tuple[int, int]:
    """Display offset and width of the caret under ``line`` (the span's first line; tabs expanded)."""
    start = min(max(span.col, 1), len(line) + 1) - 1
    if span.end_line > span.line:
        end = len(line)
    else:
        end = min(max(span.end_col, 1), len(line) + 1) - 1
    end = max(end, start + 1)  # at least one caret (also for empty ranges and ranges past the line end)
    prefix = line[:start].expandtabs(TAB)
    width = len(line[:end].expandtabs(TAB)) - len(prefix)
    return len(prefix), max(width, 1)


Line = tuple  # the parts of one output line: str, or (str, rich style)


def _assemble(*parts) -> Line:
    return parts


def _frame(lines: list[str], span: "Span", indent: str, context: int, style: str) -> Optional[tuple[list[Line], int]]:
    """A code frame around ``span``'s first line and its gutter width, or None when the line is not in the file."""
    n = span.line
    if n < 1 or n > len(lines):
        return None
    first, last = max(1, n - context), min(len(lines), n + context)
    w = len(str(last))
    out: list[Line] = []
    if context:
        out.append(_assemble(indent, (" " * w + " |", _GUTTER)))
    for i in range(first, last + 1):
        src = lines[i - 1].expandtabs(TAB)
        out.append(_assemble(indent, (f"{i:>{w}} |", _GUTTER), (" " + src).rstrip() if src.strip() else ""))
        if i == n:
            off, width = _caret_range(lines[i - 1], span)
            out.append(_assemble(indent, (" " * w + " |", _GUTTER), " " + " " * off, ("^" * width, style)))
    return out, w


def _diagnostic(d: "Diagnostic", src: _Sources, show_source: bool) -> list[Line]:
    sev = d.severity.value
    style = _SEV_STYLE.get(sev, "bold")
    opaque = is_opaque(d)
    out = [
        _assemble(
            (location_str(d.span, d.logical, opaque), "bold"),
            ": ",
            (sev, style),
            (f"[{d.code}]", style),
            " ",
            (d.name, "bold"),
            ": ",
            d.message,
        )
    ]
    frame = None
    if show_source and not opaque:
        lines = src.lines(d.span.path)
        if lines is not None:
            frame = _frame(lines, d.span, "", 1, style)
    w = 1
    if frame:
        out.extend(frame[0])
        w = frame[1]
    pad = " " * (w + 1)  # the "=" lines are aligned with the frame's gutter
    for r in d.related:
        out.append(_assemble(pad, ("= ", _GUTTER), ("related", "bold"), f": {location_str(r.span)}: {r.message}"))
        if show_source:
            rlines = src.lines(r.span.path)
            snippet = _frame(rlines, r.span, pad + "  ", 0, "bold blue") if rlines is not None else None
            if snippet:
                out.extend(snippet[0])
    for note in d.notes:
        out.append(_assemble(pad, ("= ", _GUTTER), ("note", "bold"), f": {note}"))
    if d.fix is not None:
        out.append(
            _assemble(
                pad,
                ("= ", _GUTTER),
                ("help", "bold"),
                ": ",
                (f"fix available ({d.fix.applicability})", "green"),
                f": {d.fix.message}" if d.fix.message else "",
            )
        )
    return out


def summary_line(diags: "list[Diagnostic]", ctx: "ReportContext") -> str:
    files = ctx.files_checked
    if not diags and not files:
        return f"Nothing checked: the project holds no file trtlint reads ({ctx.elapsed:.2f} s)."
    if not diags and ctx.files_selected == 0:
        return (
            f"Nothing checked: no file trtlint reads under the paths given ({_plural(files, 'file')} in the "
            f"project, {ctx.elapsed:.2f} s)."
        )
    if not diags:
        return f"All checks passed! ({_plural(files, 'file')}, {ctx.elapsed:.2f} s)"
    e = sum(1 for d in diags if d.severity.value == "error")
    w = sum(1 for d in diags if d.severity.value == "warning")
    i = sum(1 for d in diags if d.severity.value == "info")
    return (
        f"Found {_plural(len(diags), 'problem')} ({_plural(e, 'error')}, {_plural(w, 'warning')}, {i} info) "
        f"in {_plural(files, 'file')} checked ({ctx.elapsed:.2f} s)."
    )


# what rich's Text drops from what it prints (rich.control.strip_control_codes); the plain path does the same
_STRIP = {7: None, 8: None, 11: None, 12: None, 13: None}


def _plain(line: Line) -> str:
    return "".join(p if isinstance(p, str) else p[0] for p in line).translate(_STRIP).expandtabs(8)


def render_text(diags: "list[Diagnostic]", ctx: "ReportContext") -> str:
    """Without colour the lines are joined as plain text (the same characters rich prints, without importing or
    running it: rich took most of a warm run's reporting time); with colour rich renders them."""
    src = _Sources(ctx.root)
    lines: list = []
    for k, d in enumerate(diags):
        if k and ctx.show_source:
            lines.append(())
        lines.extend(_diagnostic(d, src, ctx.show_source))
    summary = None
    if ctx.problems_summary:
        if diags:
            lines.append(())
        style = "bold red" if any(d.severity.value == "error" for d in diags) else ("bold yellow" if diags else "bold green")
        summary = (summary_line(diags, ctx), style)
        lines.append((summary,))
        if ctx.analysis is not None:  # what was analysed, so "All checks passed" never hides blindness
            lines.append((ctx.analysis.line(),))
            if ctx.analysis.tensorrt_line():  # and the TensorRT release it judged against
                lines.append((ctx.analysis.tensorrt_line(),))
    if not ctx.color:
        return "".join(_plain(line) + "\n" for line in lines)
    from rich.console import Console
    from rich.text import Text

    buf = StringIO()
    console = Console(
        file=buf,
        force_terminal=ctx.color,
        no_color=not ctx.color,
        color_system="standard" if ctx.color else None,
        width=WIDTH,
        highlight=False,
        markup=False,
        emoji=False,
        legacy_windows=False,
    )
    for line in lines:
        if not line:
            console.print()
        elif line[0] is summary:
            console.print(Text(summary[0], style=summary[1]), soft_wrap=True)
        else:
            console.print(Text.assemble(*line), soft_wrap=True)
    return buf.getvalue()


def render_statistics(diags: "list[Diagnostic]", ctx: "ReportContext", unsafe_fixes: bool = False) -> str:
    """``check --statistics``: one line per rule, most frequent first (ties by code), as ruff prints it:
    count, code, a fix marker and the rule's name, tab-separated, then the summary line. The marker is shown
    only when some finding has a fix: ``[*]`` the options given apply one (``--fix``, or ``--fix
    --unsafe-fixes`` when that was given), ``[-]`` only ``--unsafe-fixes`` would, ``[ ]`` none; a rule is
    marked by the best fix any of its findings has."""
    counts: dict[str, int] = {}
    names: dict[str, str] = {}
    best: dict[str, int] = {}  # 2 applied with the options given, 1 only with --unsafe-fixes, 0 none
    for d in diags:
        counts[d.code] = counts.get(d.code, 0) + 1
        names.setdefault(d.code, d.name)
        fix = d.fix
        level = 0
        if fix is not None and fix.edits:
            if fix.applicability == "safe" or (fix.applicability == "unsafe" and unsafe_fixes):
                level = 2
            elif fix.applicability == "unsafe":
                level = 1
        best[d.code] = max(best.get(d.code, 0), level)
    rows = sorted(counts, key=lambda c: (-counts[c], c))
    cw = max((len(str(n)) for n in counts.values()), default=1)
    kw = max((len(c) for c in counts), default=1)
    marked = any(best.values())
    lines = []
    for code in rows:
        mark = ("[ ] ", "[-] ", "[*] ")[best[code]] if marked else ""
        lines.append(f"{counts[code]:>{cw}}\t{code:<{kw}}\t{mark}{names[code]}")
    if ctx.problems_summary:
        if lines:
            lines.append("")
        lines.append(summary_line(diags, ctx))
        if ctx.analysis is not None:
            lines.append(ctx.analysis.line())
            if ctx.analysis.tensorrt_line():
                lines.append(ctx.analysis.tensorrt_line())
        if marked:
            legend = []
            if 2 in best.values():
                legend.append("[*] fixable with --fix" + (" --unsafe-fixes" if unsafe_fixes else ""))
            if 1 in best.values():
                legend.append("[-] fixable with --fix --unsafe-fixes")
            lines.append("; ".join(legend))
    return "".join(line + "\n" for line in lines)
