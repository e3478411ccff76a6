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
                if "*" in s.rules:
                    if not any(u[0] == "inline" and u[1] == path and u[2] == s.line for u in used):
                        yield self.diag(
                            Span(path, s.line, s.start + 1, s.line, len(s.text) + 1),
                            "unused suppression: this `trtlint: ignore` hides no finding",
                            symbol="*",
                            fix=_remove_all(path, s),
                        )
                    continue
                unused, kept = [], []
                for raw, code in zip(s.raw, s.rules):
                    rule = find_rule(raw)
                    if rule is None:
                        kept.append(raw)  # unknown: TRT003
                        continue
                    if ("inline", path, s.line, rule.code) in used:
                        kept.append(raw)
                    else:
                        unused.append((raw, rule))
                if not unused:
                    continue
                names = ", ".join(f"{r.code} ({r.name})" if raw.upper() == r.code else f"{raw} ({r.code})" for raw, r in unused)
                fix = _remove_all(path, s) if not kept else _keep_only(path, s, kept)
                span = Span(path, s.line, s.start + 1, s.line, len(s.text) + 1)
                where = "on this line" if len(s.covers) == 1 else "on this line or the next"
                yield self.diag(
                    span,
                    f"unused suppression: no {names} finding {where} to hide",
                    symbol=",".join(r.code for _, r in unused),
                    fix=fix,
                )
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


def _known(selector: str) -> bool:
    return not unknown_selectors([selector])


def _remove_all(path: str, s) -> "Fix | None":
    from ...fixes import SAFE, delete_line, edit_span

    if s.text[: s.start].count('"') % 2 and not path.endswith((".py", ".pyi")):
        # the "comment" may sit in a C++ string literal: no blind edit (Python edits are re-parsed anyway)
        return None
    if s.text[: s.start].strip() == "":
        return Fix("remove the unused suppression (its line)", (Edit(delete_line(path, s.line), ""),), SAFE)
    start = len(s.text[: s.start].rstrip())
    return Fix(
        "remove the unused suppression",
        (Edit(edit_span(path, s.line, s.text, start, len(s.text)), ""),),
        SAFE,
    )


def _keep_only(path: str, s, kept: list[str]) -> Fix:
    from ...fixes import SAFE, edit_span

    a, b = s.inner
    return Fix(
        "remove the unused rules from the suppression",
        (Edit(edit_span(path, s.line, s.text, a, b), ", ".join(kept)),),
        SAFE,
    )
