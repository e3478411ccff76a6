"""The project state: what the index and the rules of one project are built from, in one value that a run
(:mod:`trtlint.pipeline.run`) builds and the editor's session (:mod:`trtlint.editor.session`) keeps and updates
as buffers change. Both check it the same way (:meth:`ProjectState.check`): the same ``CheckInputs``
(:meth:`ProjectState.check_inputs`), the same facts, the same rules, settings and skipped files.

A run fills it in its phases: discovery (``sources``, ``skipped``), extraction (``facts``, ``skips``, the
context), the text scans (``suppressions``, ``preview_scan``, ``tensorrt``); a session takes the run's state as
it is and replaces one file's source, facts, suppressions and preview scan per edit.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from trtlint.base.facts import FileFacts
from trtlint.checks.base import Rule
from trtlint.checks.reads import RuleMemo, WalkCarry, changed_kinds, moved_functions
from trtlint.config.packs import Packs, Profile
from trtlint.config.settings import Settings
from trtlint.frontends import ExtractContext, SourceFile
from trtlint.index.project_index import CheckInputs
from trtlint.pipeline.buildmodel import BuildModel
from trtlint.store.scancache import ProjectMarkers
from trtlint.pipeline.check import Checked, check_project, config_globs, config_selectors


@dataclass
class ProjectState:
    root: Path
    settings: Settings
    profile: Optional[Profile] = None
    packs: Optional[Packs] = None
    ctx: Optional[ExtractContext] = None  # the extraction context (a session re-extracts with it)
    rules: list[type[Rule]] = field(default_factory=list)  # the selected rules
    # what discovery skipped ((path, reason)) and what the build model could not read ((path, message, line))
    skipped: list[tuple] = field(default_factory=list)
    sources: dict[str, SourceFile] = field(default_factory=dict)  # rel -> the file (a buffer: with its text)
    facts: dict[str, FileFacts] = field(default_factory=dict)  # rel -> its facts, in the order the index takes them
    # C++ units -> the project headers they left to another unit to walk (SourceFile.skip; only units with some)
    skips: dict[str, tuple[str, ...]] = field(default_factory=dict)
    suppressions: dict[str, list] = field(default_factory=dict)  # rel -> its inline suppressions
    preview_scan: dict[str, tuple] = field(default_factory=dict)  # rel -> preview-feature switches (C++, Python)
    glob_memos: Optional[dict] = None  # discovery's and the rules' glob answers
    scopes: tuple = ()  # the independent programs of the build model
    tensorrt: dict = field(default_factory=dict)  # program -> the TensorRT release inferred for it
    unincluded: tuple = ()  # the headers no unit includes (pipeline.unincluded; CheckInputs.unincluded)
    unrunnable: tuple = ()  # the programs whose Makefile cannot run (pipeline.unincluded; CheckInputs.unrunnable)
    optional: tuple = ()  # the code only a marked build option builds (pipeline.unincluded; CheckInputs.optional)
    include_names: dict = field(default_factory=dict)  # rel -> its #include names (C++ files; pipeline.unincluded)
    model_io: dict = field(default_factory=dict)  # rel -> its model-parser / plugin-loader evidence (CheckInputs)
    executable_units: tuple = ()  # the units the tree's own executables hold (CheckInputs)
    build: Optional[BuildModel] = None
    # what makes a markerless C++ file a plugin file (a call of a project marker macro, a class deriving a project
    # plugin class: store.scancache.ProjectMarkers), and the per-file scans it is made from (rel -> (the marker
    # macros it defines, its class_bases); C++ files with some): a session makes it again when an edit changes one
    markers: ProjectMarkers = field(default_factory=ProjectMarkers)
    marker_scans: dict = field(default_factory=dict)
    # the findings of each rule at the last check and what changed since (trtlint.checks.reads): a rule whose
    # declared fact kinds did not change is not run again (the editor's session keeps the state across edits)
    rule_memo: RuleMemo = field(default_factory=RuleMemo)
    # the hot-path walks of the last check, each kept while no function it entered changed (checks.hotpath._walk);
    # None (a one-shot run): none kept. The editor's session sets one
    walk_carry: Optional[WalkCarry] = None
    checked_facts: dict[str, FileFacts] = field(default_factory=dict)  # ``facts`` as the last check saw them
    # ``trtlint check``: the key of the settings, config, profile, context, packs and trtlint itself (the run memo's,
    # without the files' digests), so the rule memo's key of the other inputs holds across processes; and whether
    # the rule memo was restored from the last run (pipeline.rulecache: it says what changed, not checked_facts)
    stable_key: Optional[str] = None
    restored: bool = False

    def check_inputs(self) -> CheckInputs:
        """What the index is handed besides the facts."""
        return CheckInputs(
            suppressions=self.suppressions,
            config_selectors=tuple(config_selectors(self.settings)),
            config_globs=config_globs(self.settings),
            preview_scan=self.preview_scan,
            glob_memos=self.glob_memos,
            scopes=tuple(self.scopes),
            scope_sources=self.scope_sources(),
            tensorrt=self.tensorrt,
            unincluded=tuple(self.unincluded),
            unrunnable=tuple(self.unrunnable),
            optional=tuple(self.optional),
            model_io=self.model_io,
            executable_units=self.executable_units,
        )

    def scope_sources(self) -> dict:
        """Per program (scope), the units its build files compile that lie under another program's directory
        (CheckInputs.scope_sources); empty when the project is one program."""
        scopes = tuple(self.scopes)
        if len(scopes) < 2 or self.build is None:
            return {}
        from trtlint.index.project_index import scope_of

        out: dict[str, list] = {}
        for t in self.build.targets:
            mine = scope_of(t.dir, scopes)
            for src in t.sources:
                if mine and scope_of(src, scopes) not in ("", mine):
                    out.setdefault(mine, []).append(src)
        return {k: tuple(dict.fromkeys(v)) for k, v in out.items()}

    def check(self, report_only: Optional[set[str]] = None, progress=None) -> Checked:
        """Index the facts, run the rules, filter (:func:`trtlint.pipeline.check.check_project`). A rule whose
        declared fact kinds (``Rule.reads``) are the same in every file as at the last check, with the same
        other inputs, gives its findings of then (:class:`trtlint.checks.reads.RuleMemo`)."""
        inputs = self.check_inputs()
        memo = self.rule_memo
        if memo.inputs_changed(self._inputs_key(inputs)) and self.walk_carry is not None:
            self.walk_carry.clear()  # (the packs, settings or config the walks read)
        last = self.checked_facts
        moved: set[str] = set()  # the USRs of the functions whose definitions changed (in every file whose facts did)
        if last:
            for rel, ff in self.facts.items():
                old = last.get(rel)
                if old is not ff:
                    memo.note(changed_kinds(old, ff))
                    moved |= moved_functions(old, ff)
            for rel, old in last.items():
                if rel not in self.facts:
                    memo.note(changed_kinds(old, None))
                    moved |= moved_functions(old, None)
            if list(last) != list(self.facts):  # (the order the index takes the facts in)
                memo.note(("files",))
            if self.walk_carry is not None:
                self.walk_carry.forget(moved)
        else:
            if self.walk_carry is not None:
                self.walk_carry.clear()
            if not self.restored:
                memo.changed = None  # no check before: nothing to reuse
        self.restored = False
        checked = check_project(list(self.facts.values()), inputs, self.rules, self.settings,
                                root=self.root, profile=self.profile, packs=self.packs, skipped=self.skipped,
                                report_only=report_only, progress=progress, memo=memo, carry=self.walk_carry)
        memo.done()
        self.checked_facts = dict(self.facts)
        return checked

    def _inputs_key(self, inputs: CheckInputs) -> tuple:
        """What the rules read besides the facts, as of now (copies: a session updates the dicts in place); the
        glob memos are left out (a cache of pattern answers, filled by the rules themselves)."""
        snap = dataclasses.replace(
            inputs, glob_memos=None, suppressions=dict(inputs.suppressions), config_globs=dict(inputs.config_globs),
            preview_scan=dict(inputs.preview_scan) if inputs.preview_scan is not None else None,
            tensorrt=dict(inputs.tensorrt), model_io=dict(inputs.model_io))
        if self.stable_key is not None:  # across processes: a digest (None, unknown: matches nothing)
            from trtlint.pipeline.rulecache import inputs_key

            return inputs_key(self.stable_key, snap) or (object(),)
        return (snap, id(self.settings), id(self.profile), id(self.packs), self.root)
