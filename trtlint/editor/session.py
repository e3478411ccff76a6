"""An in-memory project for the LSP server and ``trtlint check -`` (text from stdin).

:class:`Session` runs the whole pipeline once (:func:`trtlint.pipeline.run.run`, with the fact cache), keeps the
facts of every file in memory, and afterwards re-extracts only what changed: the unsaved text of an editor
buffer (never the file on disk while a buffer is open), or a file that changed on disk. Each
:meth:`Session.check` rebuilds the project index from the facts in memory (cheap: no parser runs) and runs
the rules and filters again (:func:`trtlint.pipeline.check.check_project`, as the run does, with the same
inputs: suppressions, config selectors and globs, preview scans, glob memos), so a finding whose other side is in another file follows edits on either side.
A change to the config file (or a rule pack it names) is noticed on the next check and reloads the project.

The session is not thread-safe: one caller at a time (the LSP server serialises its calls).
"""

from __future__ import annotations

import re
import time
import dataclasses
from dataclasses import fields
from pathlib import Path
from typing import Optional

from trtlint.base import safeio
from trtlint.checks.registry import load_checked_settings
from trtlint.config.settings import ConfigError, Settings, key_line
from trtlint.base.diagnostics import Diagnostic
from trtlint.index.discover import digest_bytes, globspec, kind_of
from trtlint.base.facts import FileFacts
from trtlint.frontends import UNSAVED, SourceFile
from trtlint.frontends.testlists import gtest_cases
from trtlint.checks.registry import select_rules
from trtlint.checks.reads import WalkCarry
from trtlint.index.project_index import CheckInputs
from trtlint.pipeline.extract import FRONTENDS
from trtlint.pipeline.run import run
from trtlint.pipeline.state import ProjectState
from trtlint.store.scancache import (ProjectMarkers, calls_any, class_bases, code_text, has_plugin_marker,
                                     include_names, marker_macros, model_io as scan_model_io, preview_switches)
from trtlint.adoption.suppress import scan_suppressions
from trtlint.editor import keptheaders

CONFIG_NAMES = ("trtlint.toml", ".trtlint.toml", "pyproject.toml")
_CPP = ("cpp", "cuda", "header")
# where a ConfigError message says the problem is: "PATH: ...", "PATH:LINE: ...", "rule pack PATH: line N: ..."
_ERROR_AT = re.compile(r"^(?:rule pack )?(?P<path>.+?)(?::(?P<line>\d+))?(?:: line (?P<yline>\d+))?: ")
_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def config_error_location(message: str, fallback: Optional[Path] = None) -> Optional[tuple[Path, Optional[int], Optional[int]]]:
    """The file, 1-based line and column (each None when unknown) a :class:`ConfigError` message names: the
    TOML parser's "(at line N, column M)" or "(at end of document)", a "PATH:LINE:" prefix, a rule pack's YAML
    line; a message without a file (an unknown profile) points at ``fallback`` (the config file), at the
    ``profile`` key when it is written there."""
    m = _ERROR_AT.match(message)
    path = Path(m.group("path")) if m else None
    if path is None or not path.is_file():
        if fallback is None or not Path(fallback).is_file():
            return None
        line = key_line(str(fallback), "profile") if message.startswith("unknown profile") else None
        return Path(fallback), line, None
    line = m.group("line") or m.group("yline")
    col = None
    t = _TOML_AT.search(message)
    if t:
        line, col = t.group(1), t.group(2)
    elif "(at end of document)" in message:
        try:
            line = max(1, len(path.read_text(encoding="utf-8", errors="replace").splitlines()))
        except OSError:
            line = None
    return path, int(line) if line else None, int(col) if col else None


def _digest(text: str) -> str:
    return digest_bytes(text.encode("utf-8", "surrogatepass"))


def _has_content(ff: Optional[FileFacts]) -> bool:
    """Whether a file's facts came from a parse that found something (not a placeholder of a file the
    pipeline never parsed, e.g. a C++ file without plugin markers that no hot path needed)."""
    if ff is None:
        return False
    return bool(
        ff.classes or ff.functions or ff.registrations or ff.emissions or ff.route_tables or ff.route_calls
        or ff.lookups or ff.api_uses or getattr(ff, "py_creators", ()) or ff.globs or ff.problems or ff.includes
    )


def _state_attr(name: str, doc: str) -> property:
    """A name of the session that is its project state's (``session.facts`` is ``session.state.facts``)."""
    return property(lambda self: getattr(self.state, name), lambda self, v: setattr(self.state, name, v), doc=doc)


class Session:
    # the project: the run's ProjectState, kept and updated per edit (pipeline/state.py)
    settings = _state_attr("settings", "the settings the project was loaded with")
    profile = _state_attr("profile", "the profile")
    packs = _state_attr("packs", "the rule packs")
    ctx = _state_attr("ctx", "the extraction context")
    rules = _state_attr("rules", "the selected rules")
    skipped = _state_attr("skipped", "discovery's skipped files and the build model's problems (TRT001)")
    sources = _state_attr("sources", "rel -> SourceFile (an open buffer's with its text)")
    facts = _state_attr("facts", "rel -> FileFacts")
    skips = _state_attr("skips", "unit -> the shared headers the run left to another unit (they lack its facts)")
    suppressions = _state_attr("suppressions", "rel -> inline suppressions")
    preview_scan = _state_attr("preview_scan", "rel -> preview-feature switches (CheckInputs.preview_scan)")
    glob_memos = _state_attr("glob_memos", "the run's glob memos (CheckInputs.glob_memos)")
    scopes = _state_attr("scopes", "the independent programs of the project (CheckInputs.scopes)")
    tensorrt = _state_attr("tensorrt", "each program's inferred TensorRT release (CheckInputs.tensorrt)")
    include_names = _state_attr("include_names", "rel -> its #include names (C++ files; pipeline.unincluded)")
    model_io = _state_attr("model_io", "rel -> model-parser / plugin-loader evidence (CheckInputs.model_io)")

    def __init__(
        self,
        root: Path,
        *,
        config_path: Optional[Path] = None,
        overrides: Optional[dict] = None,
        jobs: Optional[int] = None,
        use_cache: bool = True,
        isolate: bool = False,
        tolerate_config_errors: bool = False,
        mp_context=None,
    ):
        self.root = root.resolve()
        self.config_path = config_path
        self.overrides = overrides or {}
        self.jobs = jobs
        self.use_cache = use_cache
        self.state = ProjectState(root=self.root, settings=Settings(root=self.root))  # until the first load
        # the multiprocessing context of the run's extraction pool (the LSP server: "forkserver")
        self.mp_context = mp_context
        self.buffers: dict[str, str] = {}  # rel -> unsaved text of an open editor buffer
        self.diagnostics: list[Diagnostic] = []
        self.timings: dict[str, float] = {}
        self._extract_time = 0.0  # seconds spent re-extracting files since the last check
        self._shared: dict[tuple[str, str], bool] = {}  # (header, digest) -> a shared header (_shared_header)
        self.kept_headers = 0  # units re-extracted without their shared headers (keptheaders; for the tests)
        self.loaded = False
        self._stamp: tuple = ()
        self._exclude = None  # globspecs of the settings (set by load; None: no pattern)
        self._include = None
        # tolerate_config_errors (the LSP server): a broken config (or rule pack) does not stop a load, which
        # goes on with the built-in defaults; config_error is then the error, config_error_at where it is
        self.tolerate_config_errors = tolerate_config_errors
        self.config_error: Optional[ConfigError] = None
        self.config_error_at: Optional[tuple[Path, Optional[int], Optional[int]]] = None
        # re-extraction in a worker process killed after file-timeout seconds (the LSP server: it extracts
        # from a thread, where no timer can interrupt a parser; a worker started with forkserver that warms up
        # libclang first); else in a worker of the run's pool kind, started when a file is re-extracted
        self._isolated = None
        self._pool = None  # without ``isolate``: the one-worker pool that re-extracts files (``check -``)
        self._pool_key: tuple = ()  # the context and limits it was started with
        if isolate:
            from trtlint.pipeline.isolated import IsolatedExtractor

            self._isolated = IsolatedExtractor()

    # paths ------------------------------------------------------------------------------------------------
    def rel(self, path: Path) -> Optional[str]:
        """The project-relative POSIX path of ``path``, or None when it lies outside the project."""
        try:
            return Path(path).resolve().relative_to(self.root).as_posix()
        except (ValueError, OSError):
            return None

    def is_config(self, path: Path) -> bool:
        p = Path(path).resolve()
        if self.settings.config_file is not None and p == Path(self.settings.config_file).resolve():
            return True
        if self.config_error_at is not None and p == self.config_error_at[0].resolve():
            return True  # a broken config: the settings in force are the defaults, which name no file
        if any(p == Path(c).resolve() for c in self.settings.config_chain):
            return True
        if p.name in CONFIG_NAMES and p.parent == self.root:
            return True
        return any(p == (self.root / rp).resolve() for rp in self.settings.rule_packs)

    def _config_stamp(self) -> tuple:
        out = []
        cands = [self.root / n for n in CONFIG_NAMES]
        if self.settings.config_file is not None:
            cands.append(Path(self.settings.config_file))
        if self.config_path is not None:
            cands.append(Path(self.config_path))
        cands += [Path(c) for c in self.settings.config_chain[1:]]  # the files it extends
        if self.config_error_at is not None:
            cands.append(self.config_error_at[0])
        cands += [Path(p) if Path(p).is_absolute() else self.root / p for p in self.settings.rule_packs]
        for p in cands:
            try:
                st = p.stat()
                out.append((str(p), st.st_mtime_ns, st.st_size))
            except OSError:
                out.append((str(p), None, None))
        return tuple(out)

    # the whole project ------------------------------------------------------------------------------------
    def default_settings(self) -> Settings:
        """The built-in defaults (with the overrides): what a load goes on with past a broken config."""
        s = Settings(root=self.root)
        for f in fields(Settings):
            s.origins.setdefault(f.name, "default")
        for k, v in self.overrides.items():
            if v is not None:
                setattr(s, k, v)
                s.origins[k] = "command line"
        return s

    def load(self, progress=None) -> None:
        """(Re)build everything from disk (the fact cache makes this cheap when little changed), then lay the
        open buffers over it. Raises :class:`trtlint.config.settings.ConfigError` on a broken config, unless the session
        tolerates config errors: then the load goes on with the defaults and :attr:`config_error` says why.
        ``progress(phase, done, total)`` is told how the run goes (see :func:`trtlint.pipeline.run.run`)."""
        t0 = time.perf_counter()
        before = {p: st for p, *st in self._config_stamp()}  # a config written while this load reads it
        settings = None
        try:
            settings = load_checked_settings(self.root, self.overrides, config_path=self.config_path)
            res = run(settings, None, jobs=self.jobs, use_cache=self.use_cache, progress=progress,
                      mp_context=self.mp_context)
            self.config_error = self.config_error_at = None
        except ConfigError as e:
            if not self.tolerate_config_errors:
                raise
            found = settings.config_file if settings is not None else None
            self.config_error, self.config_error_at = e, config_error_location(str(e), found)
            settings = self.default_settings()
            res = run(settings, None, jobs=self.jobs, use_cache=self.use_cache, progress=progress,
                      mp_context=self.mp_context)
        self.result = res
        self.state = res.state  # the run's project state: the edits below update it
        self.state.walk_carry = WalkCarry()  # the hot-path walks kept from check to check
        self.diagnostics = res.diagnostics
        exclude = list(res.profile.exclude) + list(settings.exclude) + list(settings.extend_exclude)
        self._exclude = globspec(exclude)
        self._include = globspec(settings.include)
        stamp = self._config_stamp()
        # changed during the load (the settings may be the old ones): the next check loads again
        self._stamp = stamp if all(before.get(p, st) == st for p, *st in stamp) else ()
        self.loaded = True
        if self._isolated is not None:
            self._isolated.start(self.ctx)  # warms up in the background: the first edit does not wait for it
        for rel, text in list(self.buffers.items()):
            self._apply(rel, text)
        self.timings = {"load": time.perf_counter() - t0}

    def config_changed(self) -> bool:
        return self.loaded and self._config_stamp() != self._stamp

    # edits ------------------------------------------------------------------------------------------------
    def in_project(self, rel: str) -> bool:
        if rel in self.sources:
            return True
        if kind_of(rel.rsplit("/", 1)[-1]) is None:
            return False
        if self._exclude is not None and self._exclude.match_file(rel):
            return False
        if self._include is not None and not self._include.match_file(rel):
            return False
        return True

    def set_buffer(self, rel: str, text: str) -> None:
        """An editor buffer's current (unsaved) text: it replaces the file on disk until :meth:`close_buffer`."""
        if not self.in_project(rel):
            return
        if self.buffers.get(rel) == text and rel in self.sources and self.sources[rel].text == text:
            return
        self.buffers[rel] = text
        if self.loaded:
            self._apply(rel, text)

    def close_buffer(self, rel: str) -> None:
        """The buffer is closed: the file on disk is the truth again."""
        if self.buffers.pop(rel, None) is not None and self.loaded:
            self.disk_changed(rel)

    def disk_changed(self, rel: str) -> None:
        """A file was created, changed or deleted on disk (ignored while a buffer for it is open)."""
        if rel in self.buffers or not self.loaded:
            return
        p = self.root / rel
        try:
            text = safeio.read_bytes(p, root=self.root, limit=safeio.FRAME_LIMIT).decode("utf-8", errors="surrogateescape")
        except OSError:
            text = None
        if text is None:  # deleted
            self.sources.pop(rel, None)
            self.facts.pop(rel, None)
            self.suppressions.pop(rel, None)
            self.preview_scan.pop(rel, None)
            self._includes_changed(rel, None)
            self._markers_changed(rel, None)
            self.model_io.pop(rel, None)
            UNSAVED.pop(str(p), None)
            self._reextract_includers(rel)
            return
        if not self.in_project(rel):
            return
        self._apply(rel, text, from_disk=True)

    def _includes_changed(self, rel: str, names: Optional[tuple]) -> None:
        """A C++ file's ``#include`` names are now ``names`` (None: the file is gone): the headers no unit includes,
        and those only a program whose Makefile cannot run includes, are found again when they differ (what the run
        found: pipeline.unincluded)."""
        if self.include_names.get(rel) == names or self.state.build is None:
            return
        if names is None:
            self.include_names.pop(rel, None)
        else:
            self.include_names[rel] = names
        from trtlint.pipeline.unincluded import optional_builds, unincluded_headers, unrunnable_programs

        kinds = {r: s.kind for r, s in self.sources.items()}
        self.state.unincluded = unincluded_headers(kinds, self.include_names, self.state.build, self.facts.values())
        self.state.unrunnable = unrunnable_programs(kinds, self.include_names, self.state.build)
        self.state.optional = optional_builds(kinds, self.include_names, self.state.build)

    def _apply(self, rel: str, text: str, from_disk: bool = False) -> None:
        kind = self.sources[rel].kind if rel in self.sources else kind_of(rel.rsplit("/", 1)[-1])
        if kind is None:
            return
        abs_path = self.root / rel
        prev = self.sources.get(rel)
        flags = prev.flags if prev is not None else ()  # the unit's CMake target flags (the build model's)
        if from_disk:
            digest = digest_bytes(safeio.read_bytes(abs_path, root=self.root, limit=safeio.FRAME_LIMIT))
            src = SourceFile(path=abs_path, rel=rel, kind=kind, digest=digest, flags=flags)
            UNSAVED.pop(str(abs_path), None)
        else:
            src = SourceFile(path=abs_path, rel=rel, kind=kind, digest=_digest(text), text=text, flags=flags)
            if kind in _CPP:
                UNSAVED[str(abs_path)] = text  # other translation units that include it see the buffer
        self.sources[rel] = src
        sups = scan_suppressions(text, nolint=kind in _CPP)
        if sups:
            self.suppressions[rel] = sups
        else:
            self.suppressions.pop(rel, None)
        if kind in (*_CPP, "python"):
            self.preview_scan[rel] = preview_switches(text.encode("utf-8", "surrogateescape"))
        code, bases = b"", ()
        if kind in _CPP:
            data = text.encode("utf-8", "surrogateescape")
            self._includes_changed(rel, include_names(data))
            code = code_text(data)  # (what the run's text scans read: the file without its arrays of constants)
            bases = class_bases(code)
            self._markers_changed(rel, (marker_macros(code), bases))
        io = scan_model_io(text.encode("utf-8", "surrogateescape")) if kind != "onnx" else ()
        if io:
            self.model_io[rel] = io
        else:
            self.model_io.pop(rel, None)
        old = self.facts.get(rel)
        if kind not in FRONTENDS:
            self.facts[rel] = FileFacts(path=rel, kind=kind, digest=src.digest)
        elif kind in _CPP and not self.state.markers.plugin_file(has_plugin_marker(code), bases,
                                                                  lambda macros: calls_any(code, macros)) \
                and not _has_content(old):
            # not parsed by a full run either (no plugin marker, no call of a project marker macro, no class deriving a
            # project plugin class: the run's decision, ProjectMarkers; no hot path needed it): keep it that way
            self.facts[rel] = FileFacts(path=rel, kind=kind, digest=src.digest)
        elif kind == "header" and any(r != rel and rel in ff.includes for r, ff in self.facts.items()):
            # a run parses a header alone only when no unit's facts include it (pipeline.run's lone headers): the
            # units that include it carry its classes and functions, and are extracted again below. Parsed alone, a
            # header written for its includers' macros (an X-macro plugin: `class AP_CAT(AP_NAME, Plugin)`) would
            # give classes no build has
            self.facts[rel] = FileFacts(path=rel, kind=kind, digest=src.digest)
        else:
            kept = self._reextract_kept(src, prev, old, text) if kind in ("cpp", "cuda") else None
            if kept is not None:
                self.facts[rel] = kept
            else:
                self.facts[rel] = self._extract(src)
                self.skips.pop(rel, None)  # extracted whole
        self.facts[rel] = self._with_tests(src, self.facts[rel])
        if kind == "header":
            self._reextract_includers(rel)
        elif old is not None and kind in _CPP:
            self._rewalk_dropped(set(old.includes) - set(self.facts[rel].includes))

    def _markers_changed(self, rel: str, scans: Optional[tuple]) -> None:
        """A C++ file's marker macros and class bases are now ``scans`` (None: the file is gone): when they differ
        from what the project's markers were made from, the project's marker macros and plugin classes are made
        again (:class:`ProjectMarkers`, as the run makes them), for the decisions of this and later edits. The
        other files already in memory keep their facts until they are edited or the project is loaded again."""
        known = self.state.marker_scans
        if scans is not None and not any(scans):
            scans = None
        if known.get(rel) == scans:
            return
        if scans is None:
            known.pop(rel, None)
        else:
            known[rel] = scans
        markers = ProjectMarkers.of((d for d, _b in known.values()), (b for _d, b in known.values()))
        if markers != self.state.markers:
            before, self.state.markers = self.state.markers, markers
            self._shared.clear()  # (whether a header is shared depends on the project's plugin classes)
            if markers.classes != before.classes:
                self._parse_new_derivers(rel, before)

    def _parse_new_derivers(self, edited: str, before: ProjectMarkers) -> None:
        """The project's plugin classes changed (a base put on a plugin interface, a class renamed to one a file
        derives): the files in memory that now derive one, unparsed until now, are parsed as a full run would parse
        them (a unit, or a header no unit's facts include), from the per-file scans the session keeps (no file is
        read for it). A file that now calls a new marker macro is not looked for (that would read every C++ file on
        each keystroke that renames a macro): it is parsed when next opened or changed, or the project loaded again."""
        markers, scans = self.state.markers, self.state.marker_scans
        new = [r for r, (_d, bases) in scans.items() if r != edited and r in self.sources
               and markers.derives(bases) and not before.derives(bases) and not _has_content(self.facts.get(r))]
        if not new:
            return
        included = {h for ff in self.facts.values() for h in ff.includes}
        for r in new:
            src = self.sources[r]
            if src.kind in ("cpp", "cuda") or (src.kind == "header" and r not in included):
                self.facts[r] = self._extract(src)
                self.skips.pop(r, None)

    def _shared_header(self, rel: str) -> bool:
        """A project header a full run may leave to another unit to walk: no plugin marker, no class deriving a project
        plugin class (:meth:`ProjectMarkers.shareable`, the run's decision)."""
        src = self.sources.get(rel)
        if src is None or src.kind != "header":
            return False
        key = (rel, src.digest)
        got = self._shared.get(key)
        if got is None:
            data = src.text.encode("utf-8", "surrogateescape") if src.text is not None else safeio.try_read_bytes(
                src.path, root=self.root, limit=safeio.SOURCE_LIMIT)
            code = code_text(data) if data is not None else b""
            got = self._shared[key] = data is not None and self.state.markers.shareable(has_plugin_marker(code),
                                                                                         class_bases(code))
        return got

    def _old_text(self, prev: Optional[SourceFile]) -> Optional[str]:
        """The text the unit's facts were extracted from: the last buffer's, or the disk's while it still has the
        digest the facts were made with."""
        if prev is None:
            return None
        if prev.text is not None:
            return prev.text
        data = safeio.try_read_bytes(prev.path, root=self.root, limit=safeio.FRAME_LIMIT)
        if data is None or digest_bytes(data) != prev.digest:
            return None
        return data.decode("utf-8", errors="surrogateescape")

    def _reextract_kept(self, src: SourceFile, prev: Optional[SourceFile], old: Optional[FileFacts],
                        text: str) -> Optional[FileFacts]:
        """The unit's facts without walking its shared headers again (:mod:`trtlint.editor.keptheaders`): extracted
        with them skipped, their declarations taken from its last facts, and with the headers the run left to
        another unit still skipped (as a full run extracts it). None: extract it whole."""
        if old is None or keptheaders.failed(old):
            return None
        before = self._old_text(prev)
        if before is None or not keptheaders.same_prefix(before, text):
            return None
        skip = tuple(self.skips.get(src.rel, ()))
        if skip and any(x.span.path in skip for x in (*old.functions, *old.classes)):
            return None  # its facts hold a header it is said to skip: not what this unit's skip set makes
        kept = frozenset(h for h in old.includes if h not in skip and self._shared_header(h))
        if not kept and not skip:
            return None
        # (the headers the run left to another unit stay left to it: that unit's facts hold them)
        new = self._extract(dataclasses.replace(src, skip=tuple(sorted(set(skip) | kept))))
        if keptheaders.failed(new):
            return new  # not analysed (a timeout): as a whole extraction would say
        got = keptheaders.splice(old, new, kept)
        self.kept_headers += got is not None
        return got

    def _rewalk_dropped(self, dropped: set[str]) -> None:
        """The unit no longer includes these headers. A full run walks a header several units include in one of
        them only (pipeline.cpp_headers.shared_header_plan; the others have it in ``self.skips``): when this unit was that
        one, no unit's facts hold the header's declarations any more, and the first unit that still includes
        it is extracted again (whole, as every extraction of the session is)."""
        for h in sorted(dropped):
            includers = [r for r, ff in self.facts.items() if h in ff.includes and r in self.sources]
            if not includers or any(h not in self.skips.get(r, ()) for r in includers):
                continue
            self.facts[includers[0]] = self._extract(self.sources[includers[0]])
            self.skips.pop(includers[0], None)

    def _reextract_includers(self, header_rel: str) -> None:
        """A header changed: the translation units that include it carry its classes and functions."""
        for rel, ff in list(self.facts.items()):
            if rel == header_rel or header_rel not in ff.includes:
                continue
            src = self.sources.get(rel)
            if src is None:
                continue
            self.facts[rel] = self._extract(src)
            self.skips.pop(rel, None)

    def _with_tests(self, src: SourceFile, ff: FileFacts) -> FileFacts:
        """``ff`` with the googletest cases of a C++/CUDA unit (TRT404), from the same text scan a run makes
        (``scancache``: every unit, parsed or not), so an edited buffer keeps them."""
        if src.kind not in ("cpp", "cuda"):
            return ff
        if src.text is not None:
            data = src.text.encode("utf-8", "surrogateescape")
        else:
            data = safeio.try_read_bytes(src.path, root=self.root, limit=safeio.SOURCE_LIMIT) or b""
        cases = tuple(gtest_cases(src.rel, data))
        return dataclasses.replace(ff, test_cases=cases) if cases != tuple(ff.test_cases) else ff

    def _extract(self, src: SourceFile) -> FileFacts:
        """Re-extract one file within the file-timeout setting (TRT001 "timed out after N s" past it), with its
        googletest cases."""
        t0 = time.perf_counter()
        try:
            return self._with_tests(src, self._extract_facts(src))
        finally:
            self._extract_time += time.perf_counter() - t0

    def _extract_facts(self, src: SourceFile) -> FileFacts:
        timeout = float(getattr(self.settings, "file_timeout", 0) or 0)
        memory = float(getattr(self.settings, "worker_memory", 0) or 0)
        if self._isolated is not None:
            return self._isolated.extract(src, self.ctx, timeout, dict(UNSAVED), memory)
        # ``check -``: in a worker of the run's kind (forked now, so it sees the C++ buffers in UNSAVED),
        # under the same limits; this process never parses the text itself
        key = (self.ctx, timeout, memory)
        if self._pool is None or self._pool_key != key:
            self._close_pool()
            from trtlint.pipeline.workers import Pool


            self._pool, self._pool_key = Pool(1, self.ctx, timeout, memory, self.mp_context), key
        return self._pool.collect(self._pool.submit([src]))[0]

    def _close_pool(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def close(self) -> None:
        """Stop the extraction worker, if one runs."""
        if self._isolated is not None:
            self._isolated.close()
        self._close_pool()

    # checking ---------------------------------------------------------------------------------------------
    def check(self) -> list[Diagnostic]:
        """Index the facts in memory, run the rules, filter. Reloads first when the config changed."""
        if not self.loaded or self.config_changed():
            self.load()
        self.rules = select_rules(self.settings.select, self.settings.ignore, self.settings.extend_select)
        checked = self.state.check()
        self.diagnostics = checked.diagnostics
        self.index = checked.index
        self.timings.update(checked.timings)
        self.timings["extract"], self._extract_time = self._extract_time, 0.0
        memo = self.state.rule_memo  # the rules run again and those whose findings were kept (their facts unchanged)
        self.timings["rules run"], self.timings["rules kept"] = len(memo.ran), len(memo.reused)
        return self.diagnostics

    def check_inputs(self) -> CheckInputs:
        """What the index is handed besides the facts: what a run hands its index, kept current by the edits."""
        return self.state.check_inputs()

    def by_path(self) -> dict[str, list[Diagnostic]]:
        out: dict[str, list[Diagnostic]] = {}
        for d in self.diagnostics:
            out.setdefault(d.span.path, []).append(d)
        return out
