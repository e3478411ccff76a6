from __future__ import annotations

from typing import Iterable

from ...diagnostics import Diagnostic, Edit, Fix, Severity
from ...facts import Span
from ..base import Rule
from ..examples.contract import creator_cpp, onnxscript_py
from ..registry import find_rule, unknown_selectors


class UnusedSuppression(Rule):
    """A `trtlint: ignore[...]` comment or a `per-file-ignores` entry that suppresses nothing.

    ## What it does
    After the other rules ran and their findings were filtered, looks at every inline suppression comment
    (C++, CUDA, Python, CMake) and every `per-file-ignores` entry in the config, and reports each rule they
    name that hid no finding (and a bare `trtlint: ignore` that hid nothing). To judge fairly, every rule
    runs when this one is enabled, also rules that are not selected (their findings are dropped): a
    suppression of a rule that is switched off today is not reported as unused. Rule names that do not
    exist are TRT003's business, not this rule's.

    ## Why it matters
    A suppression outlives the finding it was written for: the code is fixed, or moved, and the comment
    stays. It then hides the next, real, finding on that line without anyone noticing. Stale suppressions
    also make a codebase look noisier than it is.

    ## Example
    ```cpp
    cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, stream);  // trtlint: ignore[TRT301]
    ```
    (nothing on that line allocates: the suppression is unused)

    ## Fix
    Remove it. `trtlint check --fix` does (a safe fix): it drops the unused rule from the bracket, or the
    whole comment when nothing in it is used (the whole line when the comment stands alone). Unused
    `per-file-ignores` entries are edited by hand.
    """

    code = "TRT002"
    name = "unused-suppression"
    family = "core"
    severity = Severity.WARNING
    fixable = True
    after_filter = True  # the engine runs it after the filter, with index.suppression_use set

    VALID = [
        {
            # each suppression hides a finding: a TRT101 on its own line, a TRT101 on the line below
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": onnxscript_py("FooPlugn").replace(
                    "(x, alpha=1.0)", "(x, alpha=1.0)  # trtlint: ignore[plugin-name-mismatch]"
                ),
                "py/other.py": onnxscript_py("FooPlugim").replace(
                    "    return", "    # trtlint: ignore[TRT101]\n    return"
                ),
            }
        },
        {
            # a suppression of a rule that is not selected still counts when it hides that rule's finding
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": onnxscript_py("FooPlugn").replace("(x, alpha=1.0)", "(x, alpha=1.0)  # trtlint: ignore"),
            },
            "config": {"ignore": ["TRT101"]},
        },
    ]
    INVALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": onnxscript_py("FooPlugin").replace(
                    "(x, alpha=1.0)", "(x, alpha=1.0)  # trtlint: ignore[TRT101, TRT103]"
                ),
                "py/stale.py": "# trtlint: ignore\nx = 1\n",
            },
            "expect": [
                ("py/translate.py", 7, "unused suppression: no TRT101 (plugin-name-mismatch), TRT103 (plugin-attribute-mismatch) finding on this line to hide"),
                ("py/stale.py", 1, "unused suppression: this `trtlint: ignore` hides no finding"),
            ],
            # the safe fix: a comment that hides nothing goes (with its line when it stands alone)
            "fixed": {"py/translate.py": onnxscript_py("FooPlugin"), "py/stale.py": "x = 1\n"},
        },
        {
            # one of two rules used: only the other is reported
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": onnxscript_py("FooPlugn").replace(
                    "(x, alpha=1.0)", "(x, alpha=1.0)  # trtlint: ignore[TRT101, enqueue-allocation]"
                ),
            },
            "expect": [("py/translate.py", 7, "unused suppression: no enqueue-allocation (TRT301) finding on this line to hide")],
            # the safe fix: the unused rule leaves the bracket, the used one stays
            "fixed": {"py/translate.py": onnxscript_py("FooPlugn").replace("(x, alpha=1.0)", "(x, alpha=1.0)  # trtlint: ignore[TRT101]")},
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        used = index.suppression_use
        for path, sups in sorted(index.suppressions.items()):
            for s in sups:
                yield from self._judge(path, s, used)
        cfg = index.settings
        if cfg is None or not getattr(cfg, "per_file_ignores", None):
            return
        for glob, selectors in cfg.per_file_ignores.items():
            span = index.config_globs.get(glob)
            if span is None:
                continue
            for sel in selectors:
                if not _known(sel):
                    continue  # TRT003
                if ("pfi", glob, sel) not in used:
                    yield self.diag(
                        span,
                        f"unused suppression: per-file-ignores entry '{glob}' = '{sel}' hides no finding",
                        symbol=f"{glob}:{sel}",
                    )

    def _judge(self, path: str, s, used: set) -> Iterable[Diagnostic]:
        span = Span(path, s.line, s.start + 1, s.line, (len(s.text) if s.stop < 0 else s.stop) + 1)
        if s.problem:
            yield self.diag(span, _problem(s), symbol=f"{s.problem}:{s.label}")
            return
        if s.shared:
            return  # a bare NOLINT marker (or one naming `*`) is clang-tidy's as well: not ours to remove
        mine = [u for u in used if u[0] == "inline" and u[1] == path and u[2:4] == s.key]
        if "*" in s.rules and (not s.groups or any("*" in g for g in s.groups)):
            if not mine:
                yield self.diag(span, f"unused suppression: this `{s.label}` hides no finding", symbol="*",
                                fix=_remove_all(path, s))
            return
        unused, kept = [], []
        for raw, group in zip(s.raw, s.groups):
            if not group:
                kept.append(raw)  # unknown: TRT003
            elif any(("inline", path, s.line, s.start, c) in used for c in group):
                kept.append(raw)
            else:
                unused.append((raw, group))
        if not unused:
            return
        names = ", ".join(_name(raw, group) for raw, group in unused)
        yield self.diag(
            span,
            f"unused suppression: no {names} finding {_where(s)} to hide",
            symbol=",".join(c for _, group in unused for c in group),
            fix=_remove_all(path, s) if not kept and not s.foreign else _keep_only(path, s, kept, {r for r, _ in unused}),
        )


def _name(raw: str, group: tuple[str, ...]) -> str:
    if len(group) > 1:
        return f"{raw} (any of {len(group)} rules)"
    r = find_rule(group[0])
    return f"{r.code} ({r.name})" if raw.upper() == r.code else f"{raw} ({r.code})"


def _where(s) -> str:
    if s.whole_file:
        return "in this file"
    if s.form == "NOLINTBEGIN":
        return f"in its region (lines {s.line}-{s.last})"
    if s.form == "NOLINTNEXTLINE":
        return "on the next line"
    return "on this line" if len(s.covers) == 1 else "on this line or the next"


def _problem(s) -> str:
    if s.problem == "misplaced":
        return (f"misplaced suppression: `{s.label}` covers a file only on a comment line of its own; "
                "after code it hides nothing")
    if s.form == "NOLINTBEGIN":
        return f"unmatched suppression: `{s.label}` has no NOLINTEND with the same checks after it, so it hides nothing"
    return f"unmatched suppression: `{s.label}` closes no NOLINTBEGIN with the same checks"


def _known(selector: str) -> bool:
    return not unknown_selectors([selector])


def _ends(s) -> list:
    """The marker, and a region's NOLINTEND, as (line, text, start, stop, inner)."""
    out = [(s.line, s.text, s.start, s.stop, s.inner)]
    if s.end:
        out.append(s.end)
    return out


def _remove_all(path: str, s) -> "Fix | None":
    from ...fixes import SAFE, delete_line, edit_span

    edits = []
    whole = True
    for line, text, start, stop, _ in _ends(s):
        if text[:start].count('"') % 2 and not path.endswith((".py", ".pyi")):
            # the "comment" may sit in a C++ string literal: no blind edit (Python edits are re-parsed anyway)
            return None
        stop = len(text) if stop < 0 else stop
        if text[:start].strip() == "" and text[stop:].strip() == "":
            edits.append(Edit(delete_line(path, line), ""))
            continue
        whole = False
        if text[stop:].strip() == "":
            start = len(text[:start].rstrip())
        elif text[:start].strip() == "":
            stop = len(text) - len(text[stop:].lstrip())
        edits.append(Edit(edit_span(path, line, text, start, stop), ""))
    if s.end:
        return Fix("remove the unused suppression (its NOLINTBEGIN and NOLINTEND" + (" lines)" if whole else ")"),
                   tuple(edits), SAFE)
    return Fix("remove the unused suppression" + (" (its line)" if whole else ""), tuple(edits), SAFE)


def _keep_only(path: str, s, kept: list[str], unused: set[str]) -> Fix:
    from ...fixes import SAFE, edit_span

    if s.listed:  # a NOLINT list: other tools' names stay, as written
        content = ", ".join(s.listed_without(unused))
    else:
        content = ", ".join(kept)
    edits = tuple(Edit(edit_span(path, line, text, a, b), content) for line, text, _, _, (a, b) in _ends(s))
    what = "the NOLINTBEGIN and its NOLINTEND" if s.end else "the suppression"
    return Fix(f"remove the unused rules from {what}", edits, SAFE)
