"""The rule registry and the rule selectors.

Every :class:`~trtlint.checks.base.Rule` subclass with a ``code`` in a module under ``trtlint/checks/`` is a
rule; :func:`all_rules` imports them once, sorted by code. A *selector* (in ``select``, ``ignore``,
``extend-select``, ``per-file-ignores``, ``trtlint: ignore[...]``) is ``ALL`` (every rule, the opt-in ones too),
``DEFAULT`` (the default rule set: the rules whose ``default`` is True; what ``select`` is when nothing sets it), a
rule's kebab-case name, or a prefix of its code (``TRT1`` selects TRT101..TRT199, opt-in ones included); an unknown
selector gets the closest known ones by edit distance as a suggestion.

Selectors are judged against :data:`trtlint.checks.codes.RULES` (code, name, default of every rule), a table
``python -m trtlint.cli.docsgen`` writes from the rules and a test compares with them: checking a configuration
and choosing the rules of a run the run memo answers (:func:`selected_codes`) import no rule module.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Iterable, Iterator, Optional

from trtlint.config.settings import SELECTOR_KEYS, ConfigError, Settings, key_line, load_settings
from .base import Rule
from .codes import DETAILS as _DETAILS, RULES as _CODES

# the modules under trtlint/checks/ that hold no rules
_NOT_RULES = (".base", ".registry", ".docs", ".codes")

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


class RuleCode:
    """A rule as the code table (:mod:`trtlint.checks.codes`) knows it, without importing its module."""

    __slots__ = ("code", "name", "default")

    def __init__(self, code: str, name: str, default: bool) -> None:
        self.code, self.name, self.default = code, name, default

    def __repr__(self) -> str:
        return f"RuleCode({self.code!r}, {self.name!r}, {self.default!r})"


def catalogue() -> list[RuleCode]:
    """Every rule's code, name and default, sorted by code, from the code table (no rule module imported)."""
    return [RuleCode(*row) for row in _CODES]


class RuleStub(RuleCode):
    """A selected rule as the code table knows it, its module not imported: what the check needs of a rule whose
    findings the rule memo gives (``reads``, ``after_filter``, ``supersedes``); :meth:`load` imports its class
    (``trtlint check`` with a restored rule memo imports only the rules it runs again: :mod:`trtlint.pipeline.run`)."""

    __slots__ = ("module", "reads", "after_filter", "supersedes")

    def __init__(self, code: str, name: str, default: bool) -> None:
        super().__init__(code, name, default)
        module, reads, self.after_filter, self.supersedes = _DETAILS[code]
        self.module = f"{__package__}.{module}"
        self.reads = frozenset(reads) if reads is not None else None

    def load(self) -> type[Rule]:
        """The rule's class (its module imported)."""
        m = importlib.import_module(self.module)
        for obj in vars(m).values():
            if isinstance(obj, type) and issubclass(obj, Rule) and obj.code == self.code:
                return obj
        rule = find_rule(self.code)  # (moved since the table was written: the table test says so)
        if rule is None:
            raise LookupError(f"no rule {self.code}")
        return rule


def stubs(codes: Iterable[str]) -> list[RuleStub]:
    """The rules of ``codes`` as :class:`RuleStub` (no rule module imported)."""
    names = {row[0]: row for row in _CODES}
    return [RuleStub(*names[c]) for c in codes]


_STUBS: dict[str, Optional[RuleStub]] = {}


def rule_code(code: str) -> Optional[RuleStub]:
    """The rule of ``code`` as the code table knows it (what the selectors match, ``after_filter``...), or None."""
    k = code.strip().upper()
    if k not in _STUBS:
        _STUBS[k] = next((RuleStub(*row) for row in _CODES if row[0] == k), None)
    return _STUBS[k]


def supersedes(code: str) -> tuple[str, ...]:
    """The codes the rule ``code`` supersedes (``Rule.supersedes``, from the code table); () for an unknown code."""
    row = _DETAILS.get(code.upper())
    return tuple(row[3]) if row is not None else ()


def codes_source(rules: Iterable[type[Rule]]) -> str:
    """The text of ``trtlint/checks/codes.py`` for ``rules`` (what docsgen writes and a test compares)."""
    rules = sorted(rules, key=lambda r: r.code)
    rows = "".join(f"    ({r.code!r}, {r.name!r}, {bool(r.default)!r}),\n" for r in rules)
    details = "".join(
        f"    {r.code!r}: ({r.__module__.removeprefix(__package__ + '.')!r}, "
        f"{tuple(sorted(r.reads)) if r.reads is not None else None!r}, {bool(r.after_filter)!r}, "
        f"{tuple(r.supersedes)!r}),\n" for r in rules)
    return ('"""Every rule\'s code, name and whether it is in the default set, sorted by code: what the selectors are\n'
            'judged against without importing the rule modules (:mod:`trtlint.checks.registry`); and per code its\n'
            'module, the fact kinds it reads, whether it runs after the filter and the codes it supersedes: what a\n'
            'check whose rule memo gives a rule\'s findings needs of it (``RuleStub``).\n\n'
            'Generated by ``python -m trtlint.cli.docsgen`` from the rules; do not edit (tests/test_docs.py compares).\n"""\n\n'
            f"RULES: tuple[tuple[str, str, bool], ...] = (\n{rows})\n\n"
            "DETAILS: dict[str, tuple[str, tuple[str, ...] | None, bool, tuple[str, ...]]] = {\n"
            f"{details}}}\n")


def rule_matches(rule, selector: str) -> bool:
    """Whether ``selector`` selects ``rule`` (a Rule class or a :class:`RuleCode`)."""
    s = selector.strip()
    if s.upper() == "ALL":
        return True
    if s.upper() == "DEFAULT":
        return rule.default
    if s.lower() == rule.name:
        return True
    return rule.code.upper().startswith(s.upper())


def unknown_selectors(selectors: Iterable[str]) -> list[str]:
    rules = catalogue()
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


def closest_selectors(selector: str, limit: int = 3) -> list[RuleCode | str]:
    """The known selectors nearest to an unknown one by :func:`edit_distance`, best first: rule codes and
    code prefixes of the same length (``TRT1O`` -> ``TRT10``) for a selector that looks like a code; rule
    names otherwise. Only those within one edit of a code (a quarter of a name's length, at least 2) count;
    ties are all returned, none when more than ``limit`` tie. A whole code or name comes back as its
    :class:`RuleCode`, a code prefix as a string."""
    s = selector.strip()
    rules = catalogue()
    if s.upper().startswith("TRT"):
        key, limit_d = s.upper(), 1.0
        cands: dict[str, RuleCode | str] = {}
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


def selected_codes(select: Iterable[str], ignore: Iterable[str], extend_select: Iterable[str] = ()) -> list[str]:
    """The codes of the rules the selectors choose, sorted (from the code table: no rule module imported)."""
    select = list(select) + list(extend_select)
    ignore = list(ignore)
    out = []
    for r in catalogue():
        if not any(rule_matches(r, s) for s in select):
            continue
        if any(rule_matches(r, s) for s in ignore):
            continue
        out.append(r.code)
    return out


def rules_of(codes: Iterable[str]) -> list[type[Rule]]:
    """The Rule classes of ``codes`` (imports every rule module)."""
    _load()
    return [_REGISTRY[c] for c in codes]


def select_rules(select: Iterable[str], ignore: Iterable[str], extend_select: Iterable[str] = ()) -> list[type[Rule]]:
    return rules_of(selected_codes(select, ignore, extend_select))


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
