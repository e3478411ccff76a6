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


# characters easily typed or read for one another: a substitution between them costs half an edit
_CONFUSABLE = {frozenset(p) for p in ("O0", "I1", "L1", "S5", "B8", "Z2")}


def edit_distance(a: str, b: str) -> float:
    """Levenshtein distance with adjacent transpositions (optimal string alignment); substituting a
    confusable pair (O/0, I/1, l/1, S/5, B/8, Z/2, any case) costs 0.5."""
    prev2: list[float] = []
    prev = [float(j) for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        cur = [float(i)] + [0.0] * len(b)
        for j in range(1, len(b) + 1):
            x, y = a[i - 1], b[j - 1]
            sub = 0.0 if x == y else (0.5 if frozenset((x.upper(), y.upper())) in _CONFUSABLE else 1.0)
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + sub)
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y and x != y:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[len(b)]


def closest_selectors(selector: str, limit: int = 3) -> list[type[Rule] | str]:
    """The known selectors nearest to an unknown one by :func:`edit_distance`, best first: rule codes and
    code prefixes of the same length (``TRT1O`` -> ``TRT10``) for a selector that looks like a code; rule
    names otherwise. Only those within one edit of a code (a quarter of a name's length, at least 2) count;
    ties are all returned, none when more than ``limit`` tie. A whole code or name comes back as its Rule
    class, a code prefix as a string."""
    s = selector.strip()
    rules = all_rules()
    if s.upper().startswith("TRT"):
        key, limit_d = s.upper(), 1.0
        cands: dict[str, type[Rule] | str] = {}
        for r in rules:
            cands[r.code] = r
            if len(r.code) > len(key):
                cands.setdefault(r.code[: len(key)], r.code[: len(key)])
    else:
        key, limit_d = s.lower(), max(2.0, len(s) / 4)
        cands = {r.name: r for r in rules}
    scored = sorted((edit_distance(key, c), c) for c in cands)
    if not scored or scored[0][0] > limit_d:
        return []
    best = scored[0][0]
    near = [cands[c] for d, c in scored if d == best]
    return near if len(near) <= limit else []  # many as near: none is a useful guess


def suggestion(selector: str) -> str:
    """``"; did you mean 'TRT101' (plugin-name-mismatch)?"`` for an unknown selector, or ``""``."""
    near = closest_selectors(selector)
    if not near:
        return ""
    names = [f"'{x}'" if isinstance(x, str) else (f"'{x.code}' ({x.name})" if selector.strip().upper().startswith("TRT") else f"'{x.name}' ({x.code})") for x in near]
    return "; did you mean " + (names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]) + "?"


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
