"""Filtering: rule selection, per-file ignores, inline suppressions.

Inline suppressions are comments ``// trtlint: ignore[TRT301]`` or ``# trtlint: ignore[plugin-name-mismatch]``
(several rules separated by commas; a bare ``trtlint: ignore`` covers every rule). A suppression covers its
own line; when the comment stands alone on its line, it also covers the next line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from .discover import globspec

from .checks.base import Rule, all_rules, find_rule

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


def rule_matches(rule: type[Rule], selector: str) -> bool:
    s = selector.strip()
    if s.upper() == "ALL":
        return True
    if s.lower() == rule.name:
        return True
    return rule.code.upper().startswith(s.upper())


def unknown_selectors(selectors: Iterable[str]) -> list[str]:
    rules = all_rules()
    return [s for s in selectors if not any(rule_matches(r, s) for r in rules)]


def select_rules(select: Iterable[str], ignore: Iterable[str], extend_select: Iterable[str] = ()) -> list[type[Rule]]:
    select = list(select) + list(extend_select)
    ignore = list(ignore)
    out = []
    for r in all_rules():
        if not any(rule_matches(r, s) for s in select):
            continue
        if any(rule_matches(r, s) for s in ignore):
            continue
        out.append(r)
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
