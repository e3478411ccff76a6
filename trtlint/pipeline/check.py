"""check -> filter, the one place an index is built and checked: :func:`check_project` builds the
:class:`~trtlint.index.project_index.ProjectIndex` of a set of facts with its :class:`~trtlint.index.project_index.CheckInputs` (the
inline suppressions, the selectors and per-file-ignores globs the config names, the preview-feature scans, the
glob memos) and runs the rules, the filter (selection, per-file-ignores, inline suppressions, severities) and
the rules that judge the filter. The run (:mod:`trtlint.pipeline.run`) and the LSP session
(:mod:`trtlint.editor.session`) both call it, so they cannot drift apart in what an index is given.
"""

from __future__ import annotations

import re
import time
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, NamedTuple, Optional

from trtlint.base import safeio
from trtlint.adoption.baseline import attach_snippets
from ..checks.base import Rule
from ..checks.registry import RuleStub, rule_code, stubs, supersedes
from trtlint.config.settings import Settings
from trtlint.base.diagnostics import Diagnostic, Related, Severity, also_note
from trtlint.base.facts import FileFacts, Span
from ..frontends import SourceFile
from trtlint.index.project_index import CheckInputs, ProjectIndex, is_test_path, scope_fact_sets, scope_of
from trtlint.config.packs import Packs, Profile
from trtlint.store.scancache import SUPPRESSIBLE, TextScans
from trtlint.adoption.suppress import PerFileIgnores, scan_suppressions, takes_nolint
from ..checks.reads import RuleMemo

__all__ = ["CheckInputs", "Checked", "FilterReport", "check_index", "check_project", "config_globs",
           "config_selectors", "filter_diagnostics", "merge_same_call", "run_rules", "scan_all_suppressions"]


@dataclass(frozen=True)
class FilterReport:
    """What the filter used to hide findings, for the rules that judge it (``Rule.after_filter``, TRT002):
    ``("inline", path, line, start, code-or-*)`` and ``("pfi", glob, selector)``."""

    used: frozenset = frozenset()


class Checked(NamedTuple):
    index: ProjectIndex
    diagnostics: list[Diagnostic]
    timings: dict  # seconds: "index" (building it), "check" (rules and filter)
    scoped: dict = {}  # scope -> its own index, when the project holds several programs (scope_indexes)
    # header no unit includes -> how many findings about code defined only there were set aside (the summary
    # names them; pipeline.unincluded); {} with judge-unincluded-headers = true
    aside: dict = {}
    # Makefile whose make cannot run -> (line, include as written, findings set aside, the files only it compiles)
    # (pipeline.unincluded.unrunnable_programs); {} with judge-unrunnable-builds = true
    aside_builds: dict = {}
    # plugin class only code for older TensorRT releases creates -> (OldPlugin, findings set aside)
    # (pipeline.oldrelease); {} with judge-old-release-plugins = true
    aside_old: dict = {}
    # build option the project marks experimental or deprecated -> (value it needs, where, why marked, findings set
    # aside, the files only it builds) (pipeline.unincluded.optional_builds); {} with judge-optional-builds = true
    aside_optional: dict = {}


def check_project(
    facts: Iterable[FileFacts],
    inputs: CheckInputs,
    rules: list[type[Rule]],
    settings: Settings,
    *,
    root: Path,
    profile: Profile,
    packs: Packs,
    skipped: Iterable[tuple] = (),
    report_only: Optional[set[str]] = None,
    progress=None,
    memo: Optional[RuleMemo] = None,
    carry=None,
) -> Checked:
    """Build the index of ``facts`` with ``inputs``, then :func:`check_index`. ``progress(phase, done, total)``
    is told of the ``index`` and ``check`` phases. ``memo``: the findings of the rules at the last check and the
    fact kinds changed since (a rule that reads none of them is not run again). ``carry``: the hot-path walks of the
    last check (:class:`trtlint.checks.hotpath._walk.WalkCarry`), handed to every index built here. The findings
    about code defined only in headers no unit includes (``inputs.unincluded``) are set aside (``Checked.aside``),
    unless the judge-unincluded-headers setting asks to judge them; so are those about code only a program whose
    Makefile cannot run compiles (``inputs.unrunnable``, ``Checked.aside_builds``; judge-unrunnable-builds), and those
    about a plugin class only code for older TensorRT releases creates (pipeline.oldrelease, ``Checked.aside_old``;
    judge-old-release-plugins), and those about code only a build option the project marks experimental or
    deprecated builds (``inputs.optional``, ``Checked.aside_optional``; judge-optional-builds)."""
    t0 = time.perf_counter()
    if progress is not None:
        progress("index", 0, 1)
    facts = list(facts)
    index = ProjectIndex.build(root, profile, packs, facts, settings, inputs=inputs)
    scoped = scope_indexes(facts, inputs, settings, root=root, profile=profile, packs=packs)
    if carry is not None:
        for idx in (index, *scoped.values()):
            idx.__dict__["_trtlint_carry"] = carry
    t1 = time.perf_counter()
    if progress is not None:
        progress("check", 0, 1)
    diags = check_index(index, rules, settings, list(skipped), report_only, scoped=scoped, memo=memo)
    aside: dict = {}
    if inputs.unincluded and not settings.judge_unincluded_headers:
        from .unincluded import set_aside

        diags, aside = set_aside(diags, inputs.unincluded)
    aside_builds: dict = {}
    if inputs.unrunnable and not settings.judge_unrunnable_builds:
        from .unincluded import set_aside

        for mk, line, inc, files in inputs.unrunnable:
            diags, got = set_aside(diags, files)
            aside_builds[mk] = (line, inc, sum(got.values()), tuple(files))
    aside_optional: dict = {}
    if inputs.optional and not settings.judge_optional_builds:
        from .unincluded import set_aside

        for option, needs, where, why, files in inputs.optional:
            diags, got = set_aside(diags, files)
            aside_optional[option] = (needs, where, why, sum(got.values()), tuple(files))
    aside_old: dict = {}
    if not settings.judge_old_release_plugins:
        from .oldrelease import old_release_plugins, set_aside as set_aside_old

        olds = old_release_plugins(index, scoped, root)
        diags, got = set_aside_old(diags, olds)
        aside_old = {p.qualname: (p, got.get(p.qualname, 0)) for p in olds}
    return Checked(index, diags, {"index": t1 - t0, "check": time.perf_counter() - t1}, scoped, aside, aside_builds,
                   aside_old, aside_optional)


def scope_indexes(facts: list[FileFacts], inputs: CheckInputs, settings: Settings, *, root: Path,
                  profile: Profile, packs: Packs) -> dict[str, ProjectIndex]:
    """One index per scope of ``inputs.scopes`` (an independent program of the project): the facts of the files
    in that scope plus those of the files in no scope (shared sources, Python, models), never another scope's,
    except the functions defined in another scope's headers that the scope's units include (compiled into it).
    So classes, functions, registrations and the call graph of two programs that define the same plugin class
    do not collapse into one, and a route in a scope resolves against that scope's creators. Empty when the
    project is one program."""
    scopes = tuple(inputs.scopes)
    if len(scopes) < 2:
        return {}
    out = {}
    # a Python plugin helper of one program (a package of the tree's) serves the calls of the others
    helpers = [lk for ff in facts for lk in ff.lookups if lk.dict_param is not None or lk.param_helper is not None]
    for s, (own, extra) in scope_fact_sets(facts, scopes, inputs.scope_sources).items():
        idx = out[s] = ProjectIndex.build(root, profile, packs, own + extra, settings, inputs=inputs, scope=s,
                                          helpers=helpers)
        idx.__dict__["_trtlint_borrowed"] = frozenset(ff.path for ff in extra)
    return out


def _run_scoped(rules: list[type[Rule]], index: ProjectIndex, scoped: dict[str, ProjectIndex],
                settings: Settings, memo: Optional[RuleMemo] = None) -> list[Diagnostic]:
    """The rules over the whole index, or, when the project holds several programs, each program's findings from
    its own index and the rest (files in no program) from the whole one."""
    if not scoped:
        return run_rules(rules, index, settings, memo)
    scopes = tuple(scoped)
    diags = [d for d in run_rules(rules, index, settings, memo) if not scope_of(d.span.path, scopes)]
    # a file in no program (a shared helper the programs' build files compile) is judged from the whole index; a
    # C/C++/CUDA finding there that only a program's own index gives and that it reaches from the program's own
    # code (a related location in the program: a call the whole project holds two same-named callees for, resolved
    # in the program) is kept too, once per site
    shared_sites = {(d.code, d.span.path, d.span.line) for d in diags}
    for s, idx in scoped.items():
        # (and in the headers of other programs' directories this program's units include: see scope_indexes)
        borrowed = idx.__dict__.get("_trtlint_borrowed", frozenset())
        for d in run_rules(rules, idx, settings, memo, s):
            where = scope_of(d.span.path, scopes)
            if where == s or d.span.path in borrowed:
                diags.append(d)
            elif (not where and (d.code, d.span.path, d.span.line) not in shared_sites
                  and getattr(index.files.get(d.span.path), "kind", "") in ("cpp", "cuda", "header")
                  and any(scope_of(r.span.path, scopes) == s for r in d.related)):
                shared_sites.add((d.code, d.span.path, d.span.line))
                diags.append(d)
    return diags


def check_index(
    index: ProjectIndex,
    rules: list[type[Rule]],
    settings: Settings,
    skipped: list[tuple] = (),
    report_only: Optional[set[str]] = None,
    scoped: Optional[dict[str, ProjectIndex]] = None,
    memo: Optional[RuleMemo] = None,
) -> list[Diagnostic]:
    """check -> filter: run ``rules`` over a built index (or, with ``scoped``, each program of the project over
    its own index: :func:`scope_indexes`), then selection, suppressions and severities; sorted,
    one finding per (rule, place, message), with snippets attached for line-independent fingerprints.
    ``index`` is not changed: the rules that judge the filter get a copy that says what it used."""
    root = index.root
    # rules that judge the filter itself (TRT002 unused-suppression) run after it; to know whether a
    # suppression is used, every rule runs then, and the findings of rules not selected are dropped
    late = [r for r in rules if r.after_filter]
    early = [r for r in rules if r not in late]
    judge_only: list[type[Rule]] = []
    # (a bare NOLINT marker is clang-tidy's too and never judged: it alone needs no such run)
    if late and (any(not s.shared for sups in index.suppressions.values() for s in sups) or settings.per_file_ignores):
        from ..checks.registry import all_rules, selected_codes

        chosen = {r.code for r in rules}
        # (rules known by the code table alone stay so: the memo gives the findings of most of them)
        every = stubs(selected_codes(["ALL"], [])) if any(isinstance(r, RuleStub) for r in rules) else all_rules()
        judge_only = [r for r in every if r.code not in chosen and not r.after_filter]
    diags: list[Diagnostic] = _run_scoped(early + judge_only, index, scoped or {}, settings, memo)
    for item in skipped:
        if len(item) > 2:  # (path, message, line): what the build model could not read or evaluate, always said
            rel, msg, line = item
            diags.append(Diagnostic(code="TRT001", name="parse-error", severity=Severity.WARNING, message=msg,
                                    span=Span(rel, line)))
            continue
        rel, reason = item
        if "limit" in reason or "symbolic link" in reason or "regular file" in reason:  # said, never read
            sev = Severity.INFO if "symbolic link" in reason else Severity.WARNING
            diags.append(
                Diagnostic(code="TRT001", name="parse-error", severity=sev, message=f"skipped: {reason}", span=Span(rel, 1))
            )
    used: set = set()
    diags = filter_diagnostics(diags, settings, root, None, index.suppressions, used)
    if judge_only:
        dropped = {r.code for r in judge_only}
        diags = [d for d in diags if d.code not in dropped]
    if late:
        report = FilterReport(frozenset(used))
        judged = run_rules(late, index.with_suppression_use(set(report.used)), settings)
        diags += filter_diagnostics(judged, settings, root, None, index.suppressions, used)
    if report_only is not None:
        diags = filter_diagnostics(diags, settings, root, report_only, {})
    diags.sort(key=lambda d: d.sort_key())
    # one finding per (rule, spelling location, symbol, message): a call a macro expands twice is one finding;
    # two different problems one rule finds at one place (a QDP signature's two bad arguments) stay two
    uniq: dict[tuple, Diagnostic] = {}
    for d in diags:
        uniq.setdefault((d.code, d.span.path, d.span.line, d.span.col, d.symbol, d.message), d)
    # several selected rules on one call: the most specific one (Rule.supersedes)
    return attach_snippets(merge_same_call(list(uniq.values())), root)  # for line-independent fingerprints


# the modules a check over the whole project, its filter and its summary import on first use (a warm run the run memo
# answers imports none of them): a run whose workers parse imports them meanwhile (:func:`import_ahead`)
_ON_FIRST_USE = ("trtlint.index.creatorlists", "trtlint.index.marked_names", "trtlint.index.unentered",
                 "trtlint.pipeline.oldrelease", "trtlint.adoption.subconfig",
                 "trtlint.checks.plugin.deprecated_plugin_interface")


def import_ahead(rules: Iterable) -> None:
    """What the check will import after the extraction, imported while the workers parse (the parent would wait
    idle): the modules above and those of the ``rules`` (:class:`RuleStub`) that run again whatever changed, their
    reads undeclared or judging the filter; the rules whose fact kinds changed are known from the facts only
    (:class:`RuleMemo`). After a comment edit on Edge-LLM 0.5.0 that is ~6-10 ms the check no longer waits for."""
    import importlib

    for name in _ON_FIRST_USE:
        importlib.import_module(name)
    for r in rules:
        if isinstance(r, RuleStub) and (r.reads is None or r.after_filter):
            importlib.import_module(r.module)


_SYMBOL_PARTS = re.compile(r"(?<!:):(?!:)")  # "FooPlugin:std::vector::at:FooPlugin::enqueue": the single colons


def _call_key(d: Diagnostic) -> tuple:
    """The call a finding points at: its span and callee (the hot-path rules' symbols read
    ``{plugin}:{callee}:...``; two calls a macro's body makes share the span of its use, not the callee)."""
    parts = _SYMBOL_PARTS.split(d.symbol)
    s = d.span
    return (s.path, s.line, s.col, s.end_line, s.end_col, parts[1] if len(parts) > 1 else d.symbol)


def merge_same_call(diags: list[Diagnostic]) -> list[Diagnostic]:
    """When findings of several rules point at one call, keep those no other rule there supersedes
    (:attr:`Rule.supersedes`, followed transitively) and note on each kept one the findings it took over
    ("also TRT304 unchecked-cuda-status: ..."). A finding is never dropped for a less severe one. Only the
    findings given are weighed: a rule not selected (or a finding suppressed) takes nothing over."""
    over: dict[str, set[str]] = {}
    for code in {d.code for d in diags}:
        if supersedes(code):  # (the code table's: no rule module imported)
            over[code] = _closure(code)
    if not over:
        return diags
    by_call: dict[tuple, list[Diagnostic]] = {}
    for d in diags:
        by_call.setdefault(_call_key(d), []).append(d)

    def takes(d: Diagnostic, e: Diagnostic) -> bool:
        return e.code in over.get(d.code, ()) and d.severity.rank >= e.severity.rank

    dropped: set[int] = set()
    notes: dict[int, list[str]] = {}
    sites: dict[int, list[Related]] = {}  # the other sites a finding taken over counted with its own
    for group in by_call.values():
        if len(group) < 2:
            continue
        gone = [e for e in group if any(takes(d, e) for d in group if d is not e)]
        kept = [d for d in group if all(d is not e for e in gone)]
        for e in gone:
            dropped.add(id(e))
            d = next(d for d in kept if takes(d, e))
            notes.setdefault(id(d), []).append(also_note(e.code, e.name, e.message))
            sites.setdefault(id(d), []).extend(
                Related(r.span, f"{e.code}: {r.message}") for r in e.related if "here too" in r.message)
    out = []
    for d in diags:
        if id(d) in dropped:
            continue
        if id(d) in notes:
            d = replace(d, notes=d.notes + tuple(notes[id(d)]), related=d.related + tuple(sites.get(id(d), ())))
        out.append(d)
    return out


def _closure(code: str) -> set[str]:
    """The codes ``code`` supersedes, directly or through a rule it supersedes."""
    out: set[str] = set()
    todo = [code]
    while todo:
        for c in supersedes(todo.pop()):
            if c not in out and c != code:
                out.add(c)
                todo.append(c)
    return out

def _config_text(settings: Settings) -> tuple[str, list[str]]:
    """The config file's path as findings name it (project-relative when inside the root) and its lines."""
    try:
        rel = settings.config_file.resolve().relative_to(settings.root).as_posix()
    except ValueError:
        rel = str(settings.config_file)
    try:
        lines = settings.config_file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    return rel, lines


def config_selectors(settings: Settings) -> list[tuple[str, Span]]:
    """Every rule selector the config file names, with the line it is written on."""
    if settings.config_file is None:
        return []
    rel, lines = _config_text(settings)
    sels = list(settings.select) + list(settings.ignore) + list(settings.extend_select)
    for rules in settings.per_file_ignores.values():
        sels.extend(rules)
    sels.extend(settings.severity.keys())
    out = []
    for sel in dict.fromkeys(sels):
        line = next((i for i, l in enumerate(lines, 1) if sel in l), 1)
        out.append((sel, Span(rel, line)))
    return out


def config_globs(settings: Settings) -> dict:
    """The line of each per-file-ignores glob in the config file (for TRT002)."""
    if settings.config_file is None or not settings.per_file_ignores:
        return {}
    rel, lines = _config_text(settings)
    out = {}
    for glob in settings.per_file_ignores:
        line = next((i for i, l in enumerate(lines, 1) if f'"{glob}"' in l or f"'{glob}'" in l), None)
        line = line or next((i for i, l in enumerate(lines, 1) if glob in l), 1)
        out[glob] = Span(rel, line)
    return out


def scan_all_suppressions(files: list[SourceFile], scans=None) -> dict[str, list]:
    """Inline suppression comments of every source file: whether a file holds a ``trtlint:`` comment (or, C++,
    a ``NOLINT`` marker) at all is a text scan remembered by content digest (scancache.py); only the files
    that do are read again."""
    scans = scans if scans is not None else TextScans(None)
    out: dict[str, list] = {}
    for f in files:
        if f.kind not in SUPPRESSIBLE:
            continue
        if not scans.scan(f).has_trtlint_comment:  # no `trtlint:`/NOLINT in it, or generated data over 1 MB
            continue
        sups = scan_suppressions(scans.read(f).decode("utf-8", errors="replace"), nolint=takes_nolint(f.kind))
        if sups:
            out[f.rel] = sups
    return out


def run_rules(rules: list[type[Rule]], index: ProjectIndex, settings: Settings, memo: Optional[RuleMemo] = None,
              scope: str = "") -> list[Diagnostic]:
    """Each rule's findings over ``index``; with ``memo``, those of a rule whose fact kinds did not change since
    the last check are that check's (``scope``: the program ``index`` is of, "" the whole project)."""
    diags: list[Diagnostic] = []
    for rule_cls in rules:
        if memo is not None:
            kept = memo.reusable(rule_cls, scope)
            if kept is not None:
                diags.extend(kept)
                memo.reused.append(rule_cls.code)
                continue
        if isinstance(rule_cls, RuleStub):  # run again: its class (its module imported now)
            rule_cls = rule_cls.load()
        rule = rule_cls()
        try:
            found = rule.check(index)
            found = list(found if rule_cls.applies_to_tests else (d for d in found if not is_test_path(d.span.path)))
            diags.extend(found)
            if memo is not None:
                memo.results[(rule_cls.code, scope)] = found
                memo.ran.append(rule_cls.code)
        except Exception as e:  # pragma: no cover - defensive
            tb = traceback.extract_tb(e.__traceback__)[-1]
            diags.append(
                Diagnostic(
                    code="TRT001",
                    name="parse-error",
                    severity=Severity.ERROR,
                    message=f"internal error in rule {rule_cls.code}: {type(e).__name__}: {e} ({Path(tb.filename).name}:{tb.lineno}); its findings are missing",
                    span=Span(settings.config_file.name if settings.config_file else ".", 1),
                )
            )
    return diags


def filter_diagnostics(
    diags: list[Diagnostic],
    settings: Settings,
    root: Path,
    report_only: Optional[set[str]] = None,
    suppressions: Optional[dict[str, list]] = None,
    used: Optional[set] = None,
) -> list[Diagnostic]:
    """Drop what per-file-ignores and inline suppressions hide (and, with ``report_only``, what lies outside
    those paths). ``used`` collects what did the hiding, for TRT002: ``("pfi", glob, selector)`` and
    ``("inline", path, line, start, code-or-*)`` (the suppression's line and column: :attr:`Suppression.key`)."""
    from trtlint.adoption.subconfig import NestedConfigs

    pfi = PerFileIgnores(settings.per_file_ignores)
    nested = NestedConfigs(settings)  # a config in a subdirectory governs the findings below it
    sup_cache: dict[str, list] = dict(suppressions or {})
    out = []
    for d in diags:
        rule = rule_code(d.code)  # (code, name, default: what the selectors match; no rule module imported)
        sub = nested.for_path(d.span.path)
        if sub is not None and rule is not None:
            if not sub.selects(rule) or sub.pfi.ignored(sub.rel(d.span.path), rule):
                continue
        elif rule is not None:
            hits: Optional[set] = set() if used is not None else None
            if pfi.ignored(d.span.path, rule, hits):
                if used is not None and hits is not None:
                    used.update(("pfi",) + h for h in hits)
                continue
        if report_only is not None:
            paths = {d.span.path} | {r.span.path for r in d.related}
            if not (paths & report_only):
                continue
        sups = sup_cache.get(d.span.path)
        if sups is None and suppressions is not None:
            sups = []  # every file was scanned already
        if sups is None:
            try:
                text = safeio.read_text(root / d.span.path, root=root, limit=safeio.FRAME_LIMIT)
                sups = scan_suppressions(text, nolint=takes_nolint(d.span.path))
            except (OSError, ValueError):
                sups = []
            sup_cache[d.span.path] = sups
        # a bare `trtlint: ignore` does not hide the finding that it is itself unused (TRT002)
        bare_ok = not (rule is not None and rule.after_filter)
        hiding = [s for s in sups if s.hides(d.span.line, d.code, bare_ok)]
        if hiding:
            if used is not None:
                for s in hiding:
                    used.add(("inline", d.span.path, s.line, s.start, d.code if d.code in s.rules else "*"))
            continue
        sevs = sub.settings.severity if sub is not None else settings.severity
        sev = sevs.get(d.code) or sevs.get(d.name)
        if sev:
            d = Diagnostic(**{**d.__dict__, "severity": Severity(sev)})
        out.append(d)
    return out
