"""Filtering: per-file ignores and inline suppressions (rule selection is in :mod:`trtlint.checks.registry`).

Inline suppressions are comments; each names rules by code or kebab-case name (several separated by commas),
or, written bare, covers every rule:

- a line: ``// trtlint: ignore[TRT301]`` or ``# trtlint: ignore[plugin-name-mismatch]`` covers its own line,
  and the next line when the comment stands alone on its line;
- a file: ``// trtlint: ignore-file[TRT301]``, ruff's ``# trtlint: noqa: TRT101`` and
  ``// trtlint: noqa-file TRT301`` cover every line of the file. They must stand on a comment line of their
  own; written after code they cover nothing (TRT002 says so: "misplaced");
- C, C++ and CUDA only, clang-tidy's markers: ``// NOLINT(trtlint-TRT301)`` (its line),
  ``// NOLINTNEXTLINE(trtlint-TRT301)`` (the next line) and ``// NOLINTBEGIN(trtlint-TRT204)`` ...
  ``// NOLINTEND(trtlint-TRT204)`` (the lines from one to the other). Check names are ``trtlint-<code>``,
  ``trtlint-<name>`` or a glob (``trtlint-*``); other tools' names in the list (``bugprone-*``) are kept
  but hide no trtlint finding, so a marker naming only those is no trtlint suppression. A bare marker (no
  list, or ``*``) covers every rule, as in clang-tidy; as it is clang-tidy's too, TRT002 never calls it
  unused. A NOLINTEND closes the nearest open NOLINTBEGIN with the same list; one left unpaired covers
  nothing (TRT002 says so: "unmatched").
"""

from __future__ import annotations

import fnmatch
import functools
import re
from dataclasses import dataclass
from typing import Optional

from trtlint.checks.base import Rule
from trtlint.checks.registry import catalogue, rule_code, rule_matches
from trtlint.index.discover import globspec

# the line form; `ignore` must not be the start of `ignore-file`
SUPPRESS_RE = re.compile(r"(?://|#)\s*trtlint:\s*ignore(?![\w-])(?:\[([^\]]*)\])?")
_TOK = r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*"
_LIST = rf"{_TOK}(?:[ \t]*,[ \t]*{_TOK})*"
# every `trtlint:` form; group "bracket" for ignore/ignore-file, "list" for noqa (after a colon) and noqa-file
_TRTLINT_RE = re.compile(
    r"(?://|#)\s*trtlint:\s*(?:"
    r"(?P<ig>ignore-file|ignore)(?![\w-])(?:\[(?P<bracket>[^\]]*)\])?"
    rf"|(?P<nq>noqa-file|noqa)(?![\w-])(?:(?:[ \t]*:[ \t]*|(?<=file)[ \t]+)(?P<list>{_LIST}))?"
    r")"
)
_NOLINT_RE = re.compile(r"\bNOLINT(NEXTLINE|BEGIN|END)?(?![\w-])(?:\(([^)\n]*)\))?")
_OPENER = re.compile(r"//|/\*")
_CLOSER = re.compile(r"\s*\*/")
PREFIX = "trtlint-"
ALL = "*"
FILE_FORMS = ("ignore-file", "noqa", "noqa-file")
NOLINT_FORMS = ("NOLINT", "NOLINTNEXTLINE", "NOLINTBEGIN", "NOLINTEND")
CPP_KINDS = ("cpp", "cuda", "header")
_CPP_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".cu", ".cuh", ".h", ".hh", ".hpp", ".hxx", ".inl", ".inc")


@dataclass(frozen=True)
class Suppression:
    line: int  # the comment's line (a region's NOLINTBEGIN)
    rules: tuple[str, ...]  # normalised codes, or ("*",): what it hides
    raw: tuple[str, ...]  # the rules as written (for NOLINT markers: without the `trtlint-` prefix)
    covers: tuple[int, ...]  # the lines a line form covers (see :meth:`covers_line` for the others)
    # where the comment is, for fixes (TRT002): its line's text, the character offset of the comment marker
    # and the character range of the bracket's content (0, 0 for a bare ``trtlint: ignore``)
    text: str = ""
    start: int = 0
    inner: tuple[int, int] = (0, 0)
    form: str = "ignore"  # "ignore", one of FILE_FORMS or of NOLINT_FORMS
    stop: int = -1  # where the marker ends on its line (-1: the end of the line: a reason goes with it)
    groups: tuple[tuple[str, ...], ...] = ()  # per raw name, the codes it covers (() unknown; ("*",) every rule)
    listed: tuple[str, ...] = ()  # a NOLINT marker's list as written, other tools' names included
    shared: bool = False  # a bare NOLINT marker or one naming `*`: clang-tidy's too, never reported unused
    last: int = 0  # a region's last line (its NOLINTEND's)
    end: tuple = ()  # a region's NOLINTEND: (line, text, start, stop, inner)
    problem: str = ""  # "unmatched" or "misplaced": it covers nothing, TRT002 says why

    @property
    def key(self) -> tuple[int, int]:
        """What tells two suppressions on one line apart (in ``used``: ``("inline", path, line, start, code)``)."""
        return (self.line, self.start)

    @property
    def label(self) -> str:
        """The marker as a message names it: ``trtlint: noqa``, ``NOLINTBEGIN(trtlint-*)``."""
        if self.form in NOLINT_FORMS:
            m = _NOLINT_RE.search(self.text, self.start)
            return m.group(0) if m else self.form
        return f"trtlint: {self.form}"

    @property
    def whole_file(self) -> bool:
        return self.form in FILE_FORMS

    @property
    def foreign(self) -> tuple[str, ...]:
        """Other tools' names in a NOLINT marker's list (a fix keeps them)."""
        return tuple(x for x in self.listed if not x.startswith(PREFIX))

    def listed_without(self, names: set[str]) -> tuple[str, ...]:
        """A NOLINT marker's list as written, without the trtlint ``names`` (given without the prefix)."""
        return tuple(x for x in self.listed if not (x.startswith(PREFIX) and x[len(PREFIX):] in names))

    def covers_line(self, line: int) -> bool:
        if self.problem:
            return False
        if self.form in FILE_FORMS:
            return True
        if self.form == "NOLINTBEGIN":
            return self.line <= line <= self.last
        return line in self.covers

    def hides(self, line: int, code: str, bare_ok: bool = True) -> bool:
        """Whether it hides a finding of rule ``code`` on ``line`` (``bare_ok``: a bare form counts)."""
        return self.covers_line(line) and ((bare_ok and ALL in self.rules) or code in self.rules)


@functools.lru_cache(maxsize=4096)
def item_codes(name: str) -> tuple[str, ...]:
    """The rule codes a name in a suppression covers: a code or kebab-case name gives one; a glob (``*``,
    ``TRT3*``) every rule it matches, ``("*",)`` when that is every rule; ``()`` for a name of no rule."""
    n = name.strip()
    if not n:
        return ()
    # (the rules as the code table knows them: a check with a rule memo imports only the rule modules it runs)
    if any(c in n for c in "*?["):
        rules = catalogue()
        hit = [r.code for r in rules if fnmatch.fnmatchcase(r.code, n.upper()) or fnmatch.fnmatchcase(r.name, n.lower())]
        return (ALL,) if len(hit) == len(rules) else tuple(hit)
    rule = rule_code(n) or next((r for r in catalogue() if r.name == n.lower()), None)
    return (rule.code,) if rule else ()


def takes_nolint(kind_or_path: Optional[str]) -> bool:
    """Whether clang-tidy's NOLINT markers count in a file of this kind (or at this path): C, C++ and CUDA."""
    k = (kind_or_path or "").lower()
    return k in CPP_KINDS or k.endswith(_CPP_SUFFIXES)


def _names(raw: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``rules`` and ``groups`` for names as written: an unknown name stays in ``rules`` as written (it hides
    nothing; TRT003 reports it)."""
    groups = tuple(item_codes(r) for r in raw)
    rules: list[str] = []
    for r, g in zip(raw, groups):
        for c in g or (r,):
            if c not in rules:
                rules.append(c)
    return (tuple(rules) or (ALL,)), groups


def scan_suppressions(text: str, nolint: bool = False) -> list[Suppression]:
    """The suppressions of a file's text (``nolint``: clang-tidy's markers count too, in C, C++ and CUDA),
    unmatched NOLINTBEGIN/NOLINTEND and misplaced file forms included (marked by ``problem``)."""
    out: list[Suppression] = []
    nolint = nolint and "NOLINT" in text
    if "trtlint:" not in text and not nolint:
        return out
    open_regions: list[Suppression] = []
    for i, line in enumerate(text.splitlines(), start=1):
        if "trtlint:" in line:  # every form on the line: one appended after another (`--add-suppressions`) counts
            out.extend(_trtlint_form(m, i, line) for m in _TRTLINT_RE.finditer(line))
        n = _NOLINT_RE.search(line) if nolint and "NOLINT" in line else None
        while n is not None and not _OPENER.search(line, 0, n.start()):
            n = _NOLINT_RE.search(line, n.end())  # not in a comment (an identifier, a string before any `//`)
        if n is None:
            continue
        s = _nolint_form(n, i, line)
        if s is None:
            continue  # names only other tools' checks
        if s.form == "NOLINTBEGIN":
            open_regions.append(s)
        elif s.form == "NOLINTEND":
            key = _region_key(s)
            at = next((j for j in range(len(open_regions) - 1, -1, -1) if _region_key(open_regions[j]) == key), None)
            if at is None:
                out.append(_replace(s, problem="unmatched"))
            else:
                b = open_regions.pop(at)
                out.append(_replace(b, last=i, end=(i, line, s.start, s.stop, s.inner)))
        else:
            out.append(s)
    out.extend(_replace(b, problem="unmatched") for b in open_regions)
    out.sort(key=lambda s: s.key)
    return out


def _replace(s: Suppression, **kw) -> Suppression:
    from dataclasses import replace

    return replace(s, **kw)


def _region_key(s: Suppression) -> tuple[str, ...]:
    """What a NOLINTEND must repeat to close a NOLINTBEGIN: its list (spacing aside), or nothing."""
    return s.listed or ("",)


def _trtlint_form(m: re.Match, i: int, line: str) -> Suppression:
    form = m.group("ig") or m.group("nq")
    group = "bracket" if m.group("ig") else "list"
    content = m.group(group)
    raw = tuple(x.strip() for x in (content or "").split(",") if x.strip())
    rules, groups = _names(raw)
    standalone = line[: m.start()].strip() == ""
    covers = (i, i + 1) if standalone else (i,)
    inner = (m.start(group), m.end(group)) if content is not None else (0, 0)
    problem = "misplaced" if form in FILE_FORMS and not standalone else ""
    return Suppression(line=i, rules=rules, raw=raw, covers=covers if form == "ignore" else (), text=line,
                       start=m.start(), inner=inner, form=form, groups=groups, problem=problem)


def _nolint_form(n: re.Match, i: int, line: str) -> Optional[Suppression]:
    form = "NOLINT" + (n.group(1) or "")
    content = n.group(2)
    # the marker's extent for a fix: from its comment opener when nothing else is between them, to the end of
    # its `/* */` comment when nothing else follows it there
    opener = max((o for o in _OPENER.finditer(line, 0, n.start())), key=lambda o: o.start())
    start = opener.start() if line[opener.end() : n.start()].strip() == "" else n.start()
    stop = n.end()
    if opener.group(0) == "/*":
        close = _CLOSER.match(line, stop)
        if close and start == opener.start():
            stop = close.end()
    elif start == opener.start():
        stop = -1  # a `//` comment that is only the marker (and a reason after it) goes whole
    inner = (n.start(2), n.end(2)) if content is not None else (0, 0)
    listed = tuple(x.strip() for x in (content or "").split(",") if x.strip()) if content is not None else ()
    if content is None:  # bare: every rule, every tool
        return Suppression(line=i, rules=(ALL,), raw=(), covers=_nolint_covers(form, i), text=line, start=start,
                           inner=inner, form=form, stop=stop, shared=True)
    ours = tuple(x[len(PREFIX):] for x in listed if x.startswith(PREFIX))
    shared = ALL in listed
    if not ours and not shared:
        return None  # `NOLINT(bugprone-*)`, or `NOLINT()`: nothing of trtlint's
    rules, groups = _names(ours)
    if shared:
        rules = (ALL,)
    return Suppression(line=i, rules=rules, raw=ours, covers=_nolint_covers(form, i), text=line, start=start,
                       inner=inner, form=form, stop=stop, groups=groups, listed=listed, shared=shared)


def _nolint_covers(form: str, i: int) -> tuple[int, ...]:
    return {"NOLINT": (i,), "NOLINTNEXTLINE": (i + 1,)}.get(form, ())


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
