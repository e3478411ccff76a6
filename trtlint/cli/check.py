"""`trtlint check`: request -> produce -> select -> (adopt) -> emit.

- :func:`request`: the command line read into a :class:`CheckRequest` (outputs, paths or stdin, the project root,
  the settings, the path selection); a usage error is an exit code;
- :func:`produce`: the one place that chooses how findings are produced: a full run
  (:func:`trtlint.pipeline.run.run`, with the run memo), or, for ``check -``, the editor's session (a full load,
  then the buffer laid over it and re-extracted: :class:`trtlint.editor.session.Session`);
- :func:`select`: the findings the paths select (and their related findings: ``--related-findings``);
- the adoption options (:func:`trtlint.adoption.adopt.process`: baseline, fixes, added suppressions), which
  may produce again after writing files;
- :func:`emit`: the reports in every format asked for, the summary, the exit code.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from trtlint import __version__
from trtlint.base import envvars
from trtlint.checks.registry import load_checked_settings
from trtlint.config.settings import Settings, split_csv


@dataclass
class CheckRequest:
    """What `trtlint check` was asked: read from the command line once, before anything runs."""

    args: Any  # the parsed arguments (the adoption and report options are read from them)
    outputs: list[tuple[str, Optional[Path]]]  # (format, file or None for stdout)
    paths: list[Path]  # the paths given (for ``check -``: the --stdin-filename)
    stdin_text: Optional[str]  # ``check -``: the buffer's text
    root: Path
    is_project: bool
    root_reason: str
    overrides: dict  # the command line's settings
    settings: Settings
    only: Optional[set[str]]  # the root-relative paths the findings are reported on (None: the whole project)
    scan_paths: Optional[list[Path]]  # what discovery walks (None: the whole project)
    use_cache: bool
    sel: Any = None  # the PathSelection of ``only``
    notes: dict = field(default_factory=dict)  # said once on stderr, also when --fix produces again

    @property
    def machine(self) -> bool:
        return any(f != "text" or d is not None for f, d in self.outputs)

    def inside(self, path: str) -> bool:
        return self.sel is None or self.sel.under(path)

    def session(self):
        """A session over the project (``check -``, and the comparison with git HEAD for related findings)."""
        from trtlint.editor.session import Session

        return Session(self.root, config_path=self.args.config, overrides=self.overrides, jobs=self.args.jobs,
                       use_cache=self.use_cache)


def cmd_check(args) -> int:
    req = request(args)
    if isinstance(req, int):
        return req
    progress = None
    if (not args.no_progress and not req.machine and not args.dump_index and sys.stderr.isatty()
            and req.stdin_text is None):
        from trtlint.base.progress import ProgressDisplay

        progress = ProgressDisplay()
    result, diags = produce(req, progress)
    diags = select(req, result, diags)
    selected = _say_what_was_selected(req.paths, req.root, req.is_project, req.root_reason, req.settings, result,
                                      req.sel, req.stdin_text is not None, args)
    for note in req.notes:
        print(f"trtlint: {note}", file=sys.stderr)
    if args.dump_index:
        print(json.dumps(_index_summary(result.index), indent=2))
        return 0
    from trtlint.adoption.adopt import process as adoption

    def rerun():
        nonlocal result
        result, ds = produce(req, None)  # one progress display per command
        return select(req, result, ds), {f.rel: f.digest for f in result.discovery.files}

    if req.stdin_text is not None and (args.fix or args.diff or args.fix_only):
        print("trtlint: error: `check -` reports on unsaved text; --fix/--diff need the file on disk", file=sys.stderr)
        return 2
    adopted = adoption(
        args,
        req.settings,
        req.root,
        diags,
        {f.rel: f.digest for f in result.discovery.files},
        rerun,
        req.inside if req.only is not None else None,
        set(_rule_codes(result)),
    )
    if adopted.exit_code is not None:
        return adopted.exit_code
    return emit(req, result, adopted.diags, selected, adopted)


def request(args) -> Union[CheckRequest, int]:
    """The command line read: a :class:`CheckRequest`, or the exit code of a usage error (said on stderr)."""
    try:
        outputs = _outputs(args)
    except ValueError as e:
        print(f"trtlint: error: {e}", file=sys.stderr)
        return 2
    paths = args.paths or [Path(".")]
    stdin_text = None
    if any(str(p) == "-" for p in paths):
        if len(paths) != 1 or args.stdin_filename is None:
            print("trtlint: error: `check -` reads one file's text from stdin: give its path with --stdin-filename", file=sys.stderr)
            return 2
        stdin_text = sys.stdin.buffer.read().decode("utf-8", errors="surrogateescape")
        paths = [args.stdin_filename]
    for p in paths:
        if not p.exists() and stdin_text is None:
            print(f"trtlint: error: {p}: no such file or directory", file=sys.stderr)
            return 2
    from trtlint.config.project import ProjectRootError, project_root
    from trtlint.index.pathselect import PathSelection

    if args.root:
        root, is_project, root_reason = args.root.resolve(), True, "--root"
        outside = [p for p in paths if root != p.resolve() and root not in p.resolve().parents]
        if outside:
            print(f"trtlint: error: {outside[0]}: not under the project root {root} (--root)", file=sys.stderr)
            return 2
    else:
        try:
            found = project_root(paths)  # for stdin: the file's project, even if the file is new
        except ProjectRootError as e:
            print(f"trtlint: error: {e}", file=sys.stderr)
            return 2
        root, is_project, root_reason = found.root, found.is_project, found.reason
    overrides = {
        "select": split_csv(args.select),
        "ignore": split_csv(args.ignore),
        "extend_select": split_csv(args.extend_select),
        "profile": args.profile,
        "fail_level": args.fail_level,
    }
    settings = load_checked_settings(root, overrides, config_path=args.config)
    only = None
    scan_paths = None
    if not (len(paths) == 1 and paths[0].resolve() == root):
        only = set()
        for p in paths:
            rp = p.resolve()
            if rp.is_file() or stdin_text is not None:
                only.add(rp.relative_to(root).as_posix())
            else:
                scan_paths = None  # a directory inside the project: report what lies below it
                prefix = rp.relative_to(root).as_posix()
                only.add(prefix)
    if not is_project:
        scan_paths = [p.resolve() for p in paths if p.exists()] or None
    return CheckRequest(
        args=args, outputs=outputs, paths=paths, stdin_text=stdin_text, root=root, is_project=is_project,
        root_reason=root_reason, overrides=overrides, settings=settings, only=only, scan_paths=scan_paths,
        use_cache=not args.no_cache and is_project,  # no cache directory beside loose files
        sel=PathSelection(sorted(only)) if only is not None else None,
    )


def produce(req: CheckRequest, progress=None):
    """(run result, diagnostics): the one place that chooses how findings are produced. ``check -``: the
    editor's session (the project loaded, the buffer laid over it); else a full run (the run memo answers an
    unchanged project)."""
    if req.stdin_text is not None:
        from trtlint.index.discover import kind_of
        from trtlint.pipeline.extract import preload

        # the buffer's frontend imported once, here: the workers of the load and of the buffer inherit it
        preload(kind_of(req.paths[0].name) or "", req.root)
        sess = req.session()
        try:
            sess.load()
            sess.set_buffer(req.paths[0].resolve().relative_to(req.root).as_posix(), req.stdin_text)
            sess.check()
        finally:
            sess.close()  # its extraction worker
        return sess.result, sess.diagnostics
    from trtlint.pipeline.run import run

    try:
        res = run(
            req.settings,
            req.scan_paths,
            report_only=None,
            jobs=req.args.jobs,
            use_cache=req.use_cache,
            progress=progress,
            memo=not req.args.dump_index,  # the whole-run memo (runmemo.py): no index is built on a hit
        )
    finally:
        if progress is not None:
            progress.close()
    return res, res.diagnostics


def select(req: CheckRequest, result, diags: list) -> list:
    """The findings the paths select: those located under them, or related to them (``--related-findings``:
    ``none`` keeps the located ones only, ``new`` the related ones the change made, compared with git HEAD)."""
    from trtlint.index.pathselect import keep_new_related

    sel = req.sel
    if sel is None:
        return diags
    ds = [d for d in diags if sel.selects(d)]
    if req.args.related_findings == "none":
        ds = [d for d in ds if sel.primary(d)]
    elif req.args.related_findings == "new" and req.stdin_text is None:
        ds, note = keep_new_related(ds, sel, req.root, req.session)
        if note:
            req.notes[note] = None
    return ds


def emit(req: CheckRequest, result, diags: list, selected: Optional[int], adopted) -> int:
    """The reports (every ``--format``, to stdout or a file), ``--statistics``, the exit code."""
    from trtlint.report import ReportContext, render
    from trtlint.report.context import Analysis

    args, settings, outputs = req.args, req.settings, req.outputs

    def context(color: bool = False, fmt: str = "") -> ReportContext:
        return ReportContext(
            root=req.root,
            rules=_rules(result) if fmt == "sarif" else [],  # (only SARIF describes the rules)
            files_checked=result.files_checked,
            elapsed=result.elapsed,
            tool_version=__version__,
            color=color,
            show_source=not args.no_source,
            profile=result.profile.name,
            profile_source=_profile_source(settings, args),
            root_reason=req.root_reason,
            paths=sorted(req.sel.prefixes) if req.sel is not None else None,
            files_selected=selected,
            analysis=Analysis.from_dict(result.analysis) if getattr(result, "analysis", None) is not None else None,
            profile_excluded=list(result.discovery.excluded),
        )

    stats_shown = False
    for fmt, dest in outputs:
        if args.statistics and fmt == "text" and dest is None:
            # --statistics: the per-rule counts take the text report's place on stdout (as in ruff)
            from trtlint.report.text import render_statistics

            sys.stdout.write(render_statistics(diags, context(), args.unsafe_fixes))
            stats_shown = True
            continue
        color = args.color == "always" or (
            args.color == "auto" and dest is None and sys.stdout.isatty() and not envvars.text("NO_COLOR")
        )
        out = render(fmt, diags, context(color, fmt))
        text = out if out.endswith("\n") or not out else out + "\n"
        if dest is not None:
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
    if not any(fmt == "text" for fmt, _dest in outputs) and not args.statistics:
        # a machine-readable report only: what was analysed and which TensorRT release was judged against still
        # reach the person running it (stderr; the report holds them too), so the run is never silently blind
        ctx = context()
        if ctx.analysis is not None:
            print(ctx.analysis.line(), file=sys.stderr)
            if ctx.analysis.tensorrt_line():
                print(ctx.analysis.tensorrt_line(), file=sys.stderr)
    if args.statistics:
        if not stats_shown:  # stdout holds a machine-readable report (stderr then), or nothing
            from trtlint.report.text import render_statistics

            to = sys.stderr if any(d is None for _f, d in outputs) else sys.stdout
            to.write(render_statistics(diags, context(), args.unsafe_fixes))
        t = result.timings
        print(
            f"files: {result.files_checked} discovered, {result.files_parsed} extracted ("
            + ", ".join(f"{k} {v}" for k, v in sorted(result.parsed_kinds.items()))
            + f"); profile {result.profile.name}; "
            + ", ".join(f"{k} {v:.2f}s" for k, v in t.items())
            + f"; total {result.elapsed:.2f}s",
            file=sys.stderr,
        )
    if args.exit_zero:
        return 0
    from trtlint.base.diagnostics import Severity

    level = Severity(settings.fail_level).rank
    return adopted.final_exit(1 if any(d.severity.rank >= level for d in diags) else 0, args)


def _rule_codes(result) -> list[str]:
    """The codes of the rules that ran (a run the memo answered has only the codes: no rule module imported)."""
    return list(result.rule_codes) if result.rules is None else [r.code for r in result.rules]


def _rules(result) -> list:
    """The Rule classes that ran (imports the rule modules when the run memo answered)."""
    if result.rules is not None:
        return result.rules
    from trtlint.checks.registry import rules_of

    return rules_of(result.rule_codes)


def _outputs(args) -> list[tuple[str, Optional[Path]]]:
    """The (format, file) pairs to write; file None is stdout. Raises ValueError on a bad --format."""
    from trtlint.report import FORMATS

    out: list[tuple[str, Optional[Path]]] = []
    for spec in args.format or ["text"]:
        fmt, sep, dest = spec.partition(":")
        if fmt not in FORMATS:
            raise ValueError(f"unknown format '{fmt}' (expected one of {', '.join(FORMATS)}, optionally FORMAT:FILE)")
        if sep and not dest:
            raise ValueError(f"--format {spec}: name a file after the colon")
        out.append((fmt, Path(dest) if dest else None))
    to_stdout = [f for f, d in out if d is None]
    if len(to_stdout) > 1:
        raise ValueError(f"several formats to one output ({', '.join(to_stdout)}): give all but one a file, e.g. --format sarif:out.sarif")
    if args.output is not None:
        out = [(f, d if d is not None else args.output) for f, d in out]
    return out


def _profile_source(settings, args) -> str:
    if settings.profile in ("auto", "", None):
        return "detected"
    return "from --profile" if args.profile else "configured"


def excluded_by_profile(excluded: list, profile: str, shown: int = 5) -> str:
    """What the profile's exclude patterns kept out of the run, said (the user did not write them)."""
    more = f", +{len(excluded) - shown} more" if len(excluded) > shown else ""
    return f"not checked: {', '.join(excluded[:shown])}{more} (the {profile} profile's exclude)"


def _say_what_was_selected(paths, root, is_project, root_reason, settings, result, sel, from_stdin, args) -> Optional[int]:
    """The summary's first line on stderr: the project root and the profile (and for loose files, that no
    project was found). Then, for a path that selects no file trtlint reads, why. Returns how many project
    files the paths select (None: the whole project)."""
    from trtlint.index.discover import kind_of

    line = f"trtlint: project {root} (profile {result.profile.name}, {_profile_source(settings, args)})"
    if not is_project:
        line += f"; {root_reason}"
    if result.discovery.excluded:
        line += "; " + excluded_by_profile(result.discovery.excluded, result.profile.name)
    print(line, file=sys.stderr)
    if sel is None:
        return None
    rels = {f.rel for f in result.discovery.files}
    skipped = dict(result.discovery.skipped)
    selected: set[str] = set()
    for p in paths:
        prefix = _rel_prefix(p, root)
        if from_stdin:
            hits = {prefix} if kind_of(p.name) is not None else set()
        elif prefix in rels:
            hits = {prefix}
        else:
            hits = {r for r in rels if prefix in ("", ".") or r.startswith(prefix + "/")}
        selected |= hits
        if hits:
            continue
        if p.is_dir():
            why = "holds no file trtlint reads (C/C++/CUDA sources and headers, Python, ONNX, YAML, CMake) that the project includes"
        elif kind_of(p.name) is None:
            why = "not a file trtlint reads (C/C++/CUDA sources and headers, Python, ONNX, YAML, CMake)"
        elif prefix in skipped:
            why = f"skipped: {skipped[prefix]}"
        else:
            why = "not part of the project (its include/exclude settings, the profile's excludes or .gitignore leave it out)"
        print(f"trtlint: warning: {p}: {why}; nothing is reported for it", file=sys.stderr)
    return len(selected)


def _rel_prefix(p: Path, root: Path) -> str:
    rp = p.resolve()
    return "" if rp == root else rp.relative_to(root).as_posix()


def _index_summary(index) -> dict:
    def cinfo(c):
        return {
            "class": c.qualname,
            "family": c.cls.family,
            "name": c.plugin_name,
            "version": c.plugin_version,
            "namespace": c.plugin_namespace,
            "fields": [f"{f.name}:{f.type}" for f in c.fields],
            "serialized": [f"{f.name}:{f.type}" for f in c.serialized],
            # where each of them is built (the creator's constructor may live in another file than its class)
            "field_sites": [{"name": f.name, "at": f"{f.span.path}:{f.span.line}"} for f in (*c.fields, *c.serialized)],
            "registered": [f"{s.path}:{s.line}" for r in c.registrations for s in (r.span, r.inner) if s is not None],
            "at": f"{c.cls.span.path}:{c.cls.span.line}",
        } | (_field_contract(index, c) | _created(index, c) if c.cls.kind == "creator" else {})

    return {
        "profile": index.profile.name,
        "creators": [cinfo(c) for c in index.creators],
        "plugins": [cinfo(c) for c in index.plugins],
        "emissions": [
            {"op": e.op_type, "domain": e.domain, "attrs": [a.name for a in e.attrs], "at": f"{e.span.path}:{e.span.line}"}
            for e in index.emissions
        ],
        # the nodes of the tree's ONNX models that no ONNX standard schema defines (plugin ops, custom ops)
        "model_nodes": [
            {"op": n.op_type, "domain": n.domain, "node": n.logical, "at": m.span.path}
            for m in index.models for n in m.nodes if not n.standard
        ],
        "route_tables": [{"name": t.name, "entries": len(t.entries), "version": t.version, "namespace": t.namespace} for t in index.route_tables],
        "route_calls": len(index.route_calls),
        "lookups": len(index.lookups),
        # where each lookup and direct-route call is (bench/corpus.py compares a text census with these)
        "lookup_sites": [
            {"name": lk.name, "form": lk.form, "fields": [a.name for a in lk.attrs], "at": f"{lk.span.path}:{lk.span.line}"}
            for lk in index.lookups
        ],
        "route_call_sites": [
            {"op": rc.operation, "fields": [a.name for a in rc.attrs], "at": f"{rc.span.path}:{rc.span.line}"}
            for rc in index.route_calls
        ],
        "globs": [{"var": g.var, "patterns": list(g.patterns), "targets": list(g.targets)} for g in index.globs],
        "programs": _programs_summary(index, cinfo),
    }


def _created(index, c) -> dict:
    """The plugin classes a creator's createPlugin / deserializePlugin make (the creator -> plugin link), and the
    creations whose class, written by a macro, did not resolve."""
    from trtlint.checks.contract._creators import CREATING_METHODS, contracts_by_usr, created_plugins

    contracts = contracts_by_usr(index)
    lost = [f"{o.macro}@{o.span.path}:{o.span.line}" for m in CREATING_METHODS for fn in index.find_method(c.qualname, m)
            for o in getattr(contracts.get(fn.usr), "creates", ()) if o.unresolved]
    return {"creates": [{"plugin": x.plugin.qualname, "method": x.method.name, "at": f"{x.obj.span.path}:{x.obj.span.line}"}
                        for x in created_plugins(index, c)]} | ({"creates_unresolved": lost} if lost else {})


def _field_contract(index, c) -> dict:
    """A creator's declared fields that createPlugin asserts present, falls back to a default for, or accepts at
    one length only (bench/tensorrt_plugin_fields.py writes them into rules/tensorrt_plugin_fields.yaml)."""
    required, defaults, lengths = index.field_contract(c.qualname)
    declared = {f.name for f in c.fields}
    return {"required": sorted(declared & required), "defaults": {k: v for k, v in defaults.items() if k in declared},
            "lengths": {k: v for k, v in lengths.items() if k in declared},
            # the field names read in the files of createPlugin (none: it reads the collection by position, if at all)
            "reads": sorted({r.name for r in c.reads})}


def _programs_summary(index, cinfo) -> list:
    """The independent programs the build model found (scopes), each with the plugins and creators its own index
    holds (the whole-tree lists above keep one class per name); empty when the project is one program."""
    if len(index.scopes) < 2:
        return []
    from trtlint.index.project_index import CheckInputs
    from trtlint.index.project_index import scope_of
    from trtlint.pipeline.check import scope_indexes

    scoped = scope_indexes(list(index.files.values()), CheckInputs(scopes=index.scopes), index.settings,
                           root=index.root, profile=index.profile, packs=index.packs)
    out = []
    for s in index.scopes:
        idx = scoped.get(s)
        mine = (lambda cs: [cinfo(c) for c in cs if scope_of(c.cls.span.path, index.scopes) == s])
        out.append({"scope": s, "creators": mine(idx.creators) if idx else [], "plugins": mine(idx.plugins) if idx else []})
    return out
