"""The rule registry and the rule selectors.

Every :class:`~trtlint.checks.base.Rule` subclass with a ``code`` in a module under ``trtlint/checks/`` is a
rule; :func:`all_rules` imports them once, sorted by code. A *selector* (in ``select``, ``ignore``,
``extend-select``, ``per-file-ignores``, ``trtlint: ignore[...]``) is ``ALL`` (every rule, the opt-in ones too),
``DEFAULT`` (the default rule set: the rules whose ``default`` is True; what ``select`` is when nothing sets it), a
rule's kebab-case name, or a prefix of its code (``TRT1`` selects TRT101..TRT199, opt-in ones included); an unknown
selector gets the closest known ones by edit distance as a suggestion.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Iterable, Iterator, Optional

from trtlint.config.settings import SELECTOR_KEYS, ConfigError, Settings, key_line, load_settings
from .base import Rule

# the modules under trtlint/checks/ that hold no rules
_NOT_RULES = (".base", ".registry", ".docs")

_REGISTRY: dict[str, type[Rule]] = {}


def _load() -> None:
    if _REGISTRY:
        return
    from .. import checks

    for mod in pkgutil.walk_packages(checks.__path__, checks.__name__ + "."):
        if mod.ispkg or mod.name.endswith(_NOT_RULES):
            continue
        m = importlib.import_module(mod.name)
        for obj in vars(m).values():
            if isinstance(obj, type) and issubclass(obj, Rule) and obj is not Rule and obj.code:
                if obj.code in _REGISTRY and _REGISTRY[obj.code] is not obj:
                    raise RuntimeError(f"duplicate rule code {obj.code}")
                _REGISTRY[obj.code] = obj


def all_rules() -> list[type[Rule]]:
    _load()
    return [_REGISTRY[c] for c in sorted(_REGISTRY)]


def find_rule(key: str) -> Optional[type[Rule]]:
    """Look a rule up by code (``TRT101``, case-insensitive) or name (``plugin-name-mismatch``)."""
    _load()
    k = key.strip()
    if k.upper() in _REGISTRY:
        return _REGISTRY[k.upper()]
    for r in _REGISTRY.values():
        if r.name == k.lower():
            return r
    return None


def iter_rules() -> Iterator[type[Rule]]:
    yield from all_rules()


def rule_matches(rule: type[Rule], selector: str) -> bool:
    s = selector.strip()
    if s.upper() == "ALL":
        return True
    if s.upper() == "DEFAULT":
        return rule.default
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


def check_selectors(s: Settings, attrs: list[str]) -> None:
    """A rule selector in ``select`` / ``extend-select`` / ``ignore`` (of ``attrs``) that matches no rule is an
    error (a typo would silently select nothing), with the closest known selectors by edit distance."""
    for attr in attrs:
        if attr not in SELECTOR_KEYS:
            continue
        for sel in unknown_selectors(getattr(s, attr)):
            origin = s.origins.get(attr, "")
            key = attr.replace("_", "-")
            hint = suggestion(sel) or " (see `trtlint rules`)"
            if origin == "command line":
                raise ConfigError(f"--{key}: no rule matches '{sel}'{hint}")
            line = key_line(origin, key)
            raise ConfigError(f"{origin}{f':{line}' if line else ''}: '{key}': no rule matches '{sel}'{hint}")


def load_checked_settings(target: Path, overrides: Optional[dict] = None, config_path: Optional[Path] = None) -> Settings:
    """:func:`trtlint.config.settings.load_settings` with the rule selectors judged against the catalogue: what every
    shell (the CLI, the editor's session, coverage, confirm, a nested config) loads."""
    return load_settings(target, overrides, config_path, check_selectors=check_selectors)
