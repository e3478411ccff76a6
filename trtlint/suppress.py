"""Filtering: per-file ignores and inline suppressions (rule selection is in :mod:`trtlint.checks.registry`).

Inline suppressions are comments ``// trtlint: ignore[TRT301]`` or ``# trtlint: ignore[plugin-name-mismatch]``
(several rules separated by commas; a bare ``trtlint: ignore`` covers every rule). A suppression covers its
own line; when the comment stands alone on its line, it also covers the next line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .checks.base import Rule
from .checks.registry import find_rule, rule_matches
from .discover import globspec

SUPPRESS_RE = re.compile(r"(?://|#)\s*trtlint:\s*ignore(?:\[([^\]]*)\])?")
ALL = "*"


@dataclass(frozen=True)
class Suppression:
    line: int  # the comment's line
    rules: tuple[str, ...]  # normalised codes, or ("*",)
    raw: tuple[str, ...]  # as written
    covers: tuple[int, ...]
    # where the comment is, for fixes (TRT002): its line's text, the character offset of the comment marker
    # and the character range of the bracket's content (0, 0 for a bare ``trtlint: ignore``)
    text: str = ""
    start: int = 0
    inner: tuple[int, int] = (0, 0)


def scan_suppressions(text: str) -> list[Suppression]:
    out = []
    if "trtlint:" not in text:
        return out
    for i, line in enumerate(text.splitlines(), start=1):
        m = SUPPRESS_RE.search(line)
        if not m:
            continue
        raw = tuple(x.strip() for x in (m.group(1) or "").split(",") if x.strip())
        codes = []
        for r in raw:
            rule = find_rule(r)
            codes.append(rule.code if rule else r)
        standalone = line[: m.start()].strip() == ""
        covers = (i, i + 1) if standalone else (i,)
        inner = (m.start(1), m.end(1)) if m.group(1) is not None else (0, 0)
        out.append(
            Suppression(
                line=i, rules=tuple(codes) or (ALL,), raw=raw, covers=covers, text=line, start=m.start(), inner=inner
            )
        )
    return out


class PerFileIgnores:
    def __init__(self, table: dict[str, list[str]]):
        items = [(glob, rules) for glob, rules in (table or {}).items() if glob.strip()]
        self.globs = [glob for glob, _ in items]
        self.entries = [(globspec([glob]), rules) for glob, rules in items]

    def ignored(self, path: str, rule: type[Rule], used: "set | None" = None) -> bool:
        """Whether an entry ignores ``rule`` in ``path``; ``used`` collects the (glob, selector) pairs that did."""
        hit = False
        for (spec, rules), glob in zip(self.entries, self.globs):
            if spec.match_file(path):
                for s in rules:
                    if rule_matches(rule, s):
                        hit = True
                        if used is None:
                            return True
                        used.add((glob, s))
        return hit
