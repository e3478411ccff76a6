from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Severity
from trtlint.base.facts import Span
from ..base import Rule
from ..registry import all_rules, find_rule, unknown_selectors


def _known(selector: str) -> bool:
    return not unknown_selectors([selector])


class UnknownRuleInSuppression(Rule):
    """A suppression comment or the config names a rule that does not exist.

    ## What it does
    Checks every rule named in an inline suppression (`trtlint: ignore[...]`, `ignore-file[...]`, `noqa: ...`,
    `noqa-file ...`, and the `trtlint-` checks of a C++ `NOLINT(...)` marker) and every selector in the
    config's `per-file-ignores` and `severity` against the rule catalogue: codes, kebab-case names, code
    prefixes (`TRT3`) and, in NOLINT markers, globs matching a rule (`trtlint-TRT3*`) are accepted. (An unknown selector in `select`, `extend-select` or `ignore`, in the config or on
    the command line, is an error that stops the run with exit code 2: it would change which rules run.)

    ## Why it matters
    A misspelled rule in a suppression suppresses nothing, and the finding it was meant to silence shows up
    again (or, in config, a rule the team meant to turn off keeps running): the typo is invisible otherwise.

    ## Example
    ```cpp
    cudaMalloc(&p, n);  // trtlint: ignore[TRT310]   (there is no TRT310; TRT301 was meant)
    ```

    ## Fix
    Use the code or name that `trtlint rules` lists.
    """

    code = "TRT003"
    reads = frozenset()
    name = "unknown-rule-in-suppression"
    family = "core"
    severity = Severity.WARNING

    VALID = [
        {
            "files": {
                "a.py": "x = 1  # trtlint: ignore[plugin-name-mismatch, TRT1]\n",
                # other tools' checks in a NOLINT list are theirs to know
                "b.cpp": "int x = 1;  // NOLINT(trtlint-TRT3*, bugprone-no-such-check, trtlint-enqueue-allocation)\n",
            }
        }
    ]
    INVALID = [
        {
            "files": {"a.py": "import os\nx = 1  # trtlint: ignore[TRT999, plugin-nme-mismatch]\n"},
            "expect": [
                ("a.py", 2, "suppression names rule 'TRT999', which does not exist"),
                ("a.py", 2, "suppression names rule 'plugin-nme-mismatch', which does not exist; did you mean 'plugin-name-mismatch'"),
            ],
        },
        {
            # a NOLINT marker's trtlint checks, named without their `trtlint-` prefix; a glob that matches no rule
            "files": {"b.cpp": "int x = 1;  // NOLINT(trtlint-TRT999, trtlint-TRT9*, bugprone-x)\n"},
            "expect": [
                ("b.cpp", 1, "suppression names rule 'TRT999', which does not exist"),
                ("b.cpp", 1, "suppression names rule 'TRT9*', which does not exist"),
            ],
        }
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        import difflib

        names = [r.name for r in all_rules()] + [r.code for r in all_rules()]

        def hint(sel: str) -> str:
            close = difflib.get_close_matches(sel, names, n=1, cutoff=0.75)
            return f"; did you mean '{close[0]}'?" if close else " (see `trtlint rules`)"

        for sel, span in index.config_selectors:
            if not _known(sel):
                yield self.diag(span, f"config names rule '{sel}', which does not exist{hint(sel)}", symbol=sel)
        for path, sups in sorted(index.suppressions.items()):
            for s in sups:
                for raw, group in zip(s.raw, s.groups or ((),) * len(s.raw)):
                    if not group and find_rule(raw) is None and not _known(raw):
                        yield self.diag(
                            Span(path, s.line), f"suppression names rule '{raw}', which does not exist{hint(raw)}", symbol=raw
                        )
