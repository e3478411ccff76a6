"""Command line: ``trtlint check | rule | rules | lsp | config | confirm | clean``.

Exit codes: 0 nothing at or above the fail level, 1 findings, 2 usage, config or internal error.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import traceback
from pathlib import Path
from typing import Optional

from trtlint import __version__
from trtlint.base import envvars
from trtlint.checks.registry import load_checked_settings
from trtlint.config.settings import ConfigError, split_csv


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="trtlint", description="Static analyzer for TensorRT plugin and converter code.")
    p.add_argument("--version", action="version", version=f"trtlint {__version__}")
    sub = p.add_subparsers(dest="command")

    c = sub.add_parser("check", help="check a project (default: the current directory)")
    c.add_argument("paths", nargs="*", type=Path, help="a project directory, or files in a project")
    c.add_argument(
        "--format",
        action="append",
        metavar="FORMAT[:FILE]",
        help="text, json, sarif, github, gitlab or junit; FORMAT:FILE writes that report to FILE. Repeat for "
        "several outputs in one run, e.g. --format text --format sarif:trtlint.sarif (default: text)",
    )
    c.add_argument("--output", "-o", type=Path, help="write the report to FILE instead of stdout")
    c.add_argument("--stdin-filename", type=Path, help="with `check -`: the path of the file whose text is read from stdin")
    c.add_argument("--no-progress", action="store_true", help="no progress display on a terminal")
    c.add_argument("--select", action="append", help="rules to enable (codes, names or prefixes; comma-separated)")
    c.add_argument("--extend-select", action="append")
    c.add_argument("--ignore", action="append", help="rules to disable")
    c.add_argument("--config", type=Path, help="use this config file (trtlint.toml or pyproject.toml)")
    c.add_argument(
        "--root",
        type=Path,
        help="the project root (default: found from each path upwards: a config file, the repository root, a "
        "profile's markers, else the current directory when it holds the paths)",
    )
    c.add_argument(
        "--related-findings",
        choices=["all", "new", "none"],
        default="all",
        help="a finding located outside the paths given whose related location is under them: all (default) "
        "are reported; new: only those that the changes since git HEAD to the files under the paths created "
        "(the pre-commit hook); none: none",
    )
    c.add_argument("--profile", help="codebase profile (default: detected from the tree)")
    c.add_argument("--fail-level", choices=["error", "warning", "info"])
    c.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    c.add_argument("--no-cache", action="store_true", help="do not read or write .trtlint_cache/")
    c.add_argument("--jobs", "-j", type=int, help="parallel extraction processes (default: cores)")
    c.add_argument("--color", choices=["auto", "always", "never"], default="auto")
    c.add_argument("--no-source", action="store_true", help="text: no code frames")
    c.add_argument(
        "--statistics",
        action="store_true",
        help="count the findings per rule (with whether --fix fixes them) instead of listing them; "
        "the timings follow on stderr",
    )
    c.add_argument("--dump-index", action="store_true", help="print the joined plugin/creator index as JSON")
    from trtlint.adoption.adopt import add_arguments as add_adoption_arguments

    add_adoption_arguments(c)

    r = sub.add_parser("rule", help="explain a rule")
    r.add_argument("rule", nargs="?", help="code or name, e.g. TRT101 or plugin-name-mismatch")
    r.add_argument("--all", action="store_true")
    r.add_argument("--format", choices=["text", "json", "markdown"], default="text")

    rs = sub.add_parser("rules", help="list every rule")
    rs.add_argument("--format", choices=["text", "json"], default="text")

    cf = sub.add_parser("config", help="show the effective configuration")
    cf.add_argument("path", nargs="?", type=Path, default=Path("."))
    cf.add_argument("--show", action="store_true", default=True)

    add_confirm_parser(sub)

    cv = sub.add_parser("coverage", help="will ONNX models import into TensorRT: every node classified (docs/coverage.md)")
    cv.add_argument("models", nargs="+", type=Path, metavar="MODEL", help="ONNX model files, or directories to search for *.onnx")
    cv.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    cv.add_argument("--output", type=Path, help="write the report to FILE")
    cv.add_argument("--tensorrt", metavar="X.Y", help="the TensorRT version to judge restrictions against (default: the pack's)")
    cv.add_argument("--no-project", action="store_true", help="ignore the project around the models: built-in importers and TensorRT's plugin library only")
    cv.add_argument("--root", type=Path, help="the project root whose creators are known (default: found from the models)")
    cv.add_argument("--profile", help="codebase profile (default: detected)")
    cv.add_argument("--jobs", "-j", type=int, default=None)
    cv.add_argument("--no-cache", action="store_true")

    ls = sub.add_parser("lsp", help="run the language server (LSP over stdio)")
    ls.add_argument("--debounce-ms", type=int, default=None, help="wait this long after the last edit before checking (default 100)")
    ls.add_argument("--log-file", help="write the server's log to FILE")

    cl = sub.add_parser("clean", help="remove .trtlint_cache/ (--all: and the per-user cache)")
    cl.add_argument("path", nargs="?", type=Path, default=Path("."))
    cl.add_argument(
        "--all",
        action="store_true",
        help="also remove the per-user cache of precompiled headers ($XDG_CACHE_HOME/trtlint/pch, default "
        "~/.cache/trtlint/pch; $TRTLINT_PCH_DIR when set)",
    )
    return p


def add_confirm_parser(sub) -> None:
    from trtlint.cli.confirm_args import add_arguments

    add_arguments(sub.add_parser("confirm", help="reproduce findings with TensorRT (repro folders; runs them where TensorRT and a GPU are)"))


def main(argv: Optional[list[str]] = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code in (0, None) else 2
    if args.command is None:
        parser.print_help()
        return 2
    try:
        if args.command == "check":
            # a one-shot process: the cyclic collector would only traverse the run's hundreds of thousands of
            # long-lived fact objects again (in the report phase, and once more at interpreter exit: ~0.1 s each
            # on Edge-LLM); pipeline.run.run pauses it for the run, this keeps it paused until the process ends
            import gc

            gc.disable()
            return cmd_check(args)
        if args.command == "coverage":
            return cmd_coverage(args)
        if args.command == "rule":
            return cmd_rule(args)
        if args.command == "rules":
            return cmd_rules(args)
        if args.command == "config":
            return cmd_config(args)
        if args.command == "clean":
            return cmd_clean(args)
        if args.command == "confirm":
            from trtlint.confirm.cli import cmd_confirm

            return cmd_confirm(args)
        if args.command == "lsp":
            from trtlint.editor.server import DEFAULT_DEBOUNCE_MS, main as lsp_main

            return lsp_main(args.debounce_ms if args.debounce_ms is not None else DEFAULT_DEBOUNCE_MS, args.log_file)
    except ConfigError as e:
        print(f"trtlint: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("trtlint: interrupted", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except Exception as e:  # pragma: no cover - last line of defence: never a traceback
        tb = traceback.extract_tb(e.__traceback__)[-1]
        print(
            f"trtlint: internal error: {type(e).__name__}: {e} ({Path(tb.filename).name}:{tb.lineno}). "
            "Please report it with the command line you ran.",
            file=sys.stderr,
        )
        return 2
    return 2


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


def cmd_check(args) -> int:
    from trtlint.pipeline.run import run
    from trtlint.report import ReportContext, render
    from trtlint.report.context import Analysis

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
    from trtlint.index.pathselect import PathSelection, keep_new_related

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
    use_cache = not args.no_cache and is_project  # no cache directory beside loose files
    machine = any(f != "text" or d is not None for f, d in outputs)
    progress = None
    if not args.no_progress and not machine and not args.dump_index and sys.stderr.isatty() and stdin_text is None:
        from trtlint.base.progress import ProgressDisplay

        progress = ProgressDisplay()

    sel = PathSelection(sorted(only)) if only is not None else None
    notes: dict[str, None] = {}  # said once, also when --fix runs the check again

    def inside(path: str) -> bool:
        return sel is None or sel.under(path)

    def session():
        from trtlint.editor.session import Session

        return Session(root, config_path=args.config, overrides=overrides, jobs=args.jobs, use_cache=use_cache)

    def check_once():
        if stdin_text is not None:
            from trtlint.index.discover import kind_of
            from trtlint.pipeline.extract import preload

            # the buffer's frontend imported once, here: the workers of the load and of the buffer inherit it
            preload(kind_of(paths[0].name) or "", root)
            sess = session()
            try:
                sess.load()
                sess.set_buffer(paths[0].resolve().relative_to(root).as_posix(), stdin_text)
                sess.check()
            finally:
                sess.close()  # its extraction worker
            res, ds = sess.result, sess.diagnostics
        else:
            try:
                res = run(
                    settings,
                    scan_paths,
                    report_only=None,
                    jobs=args.jobs,
                    use_cache=use_cache,
                    progress=progress,
                    memo=not args.dump_index,  # the whole-run memo (runmemo.py): no index is built on a hit
                )
            finally:
                if progress is not None:
                    progress.close()
            ds = res.diagnostics
        if sel is not None:  # the paths select the findings located under them, or related to them
            ds = [d for d in ds if sel.selects(d)]
            if args.related_findings == "none":
                ds = [d for d in ds if sel.primary(d)]
            elif args.related_findings == "new" and stdin_text is None:
                ds, note = keep_new_related(ds, sel, root, session)
                if note:
                    notes[note] = None
        return res, ds

    result, diags = check_once()
    selected = _say_what_was_selected(paths, root, is_project, root_reason, settings, result, sel, stdin_text is not None, args)
    for note in notes:
        print(f"trtlint: {note}", file=sys.stderr)
    if args.dump_index:
        print(json.dumps(_index_summary(result.index), indent=2))
        return 0
    from trtlint.adoption.adopt import process as adoption

    def rerun():
        nonlocal result, progress
        progress = None  # one progress display per command
        result, ds = check_once()
        return ds, {f.rel: f.digest for f in result.discovery.files}

    if stdin_text is not None and (args.fix or args.diff or args.fix_only):
        print("trtlint: error: `check -` reports on unsaved text; --fix/--diff need the file on disk", file=sys.stderr)
        return 2
    adopted = adoption(
        args,
        settings,
        root,
        diags,
        {f.rel: f.digest for f in result.discovery.files},
        rerun,
        inside if only is not None else None,
        {r.code for r in result.rules},
    )
    if adopted.exit_code is not None:
        return adopted.exit_code
    diags = adopted.diags

    def context(color: bool = False) -> ReportContext:
        return ReportContext(
            root=root,
            rules=result.rules,
            files_checked=result.files_checked,
            elapsed=result.elapsed,
            tool_version=__version__,
            color=color,
            show_source=not args.no_source,
            profile=result.profile.name,
            profile_source=_profile_source(settings, args),
            root_reason=root_reason,
            paths=sorted(sel.prefixes) if sel is not None else None,
            files_selected=selected,
            analysis=Analysis.from_dict(result.analysis) if getattr(result, "analysis", None) is not None else None,
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
        out = render(fmt, diags, context(color))
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


def _profile_source(settings, args) -> str:
    if settings.profile in ("auto", "", None):
        return "detected"
    return "from --profile" if args.profile else "configured"


def _say_what_was_selected(paths, root, is_project, root_reason, settings, result, sel, from_stdin, args) -> Optional[int]:
    """The summary's first line on stderr: the project root and the profile (and for loose files, that no
    project was found). Then, for a path that selects no file trtlint reads, why. Returns how many project
    files the paths select (None: the whole project)."""
    from trtlint.index.discover import kind_of

    line = f"trtlint: project {root} (profile {result.profile.name}, {_profile_source(settings, args)})"
    if not is_project:
        line += f"; {root_reason}"
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
            "registered": [f"{r.span.path}:{r.span.line}" for r in c.registrations],
            "at": f"{c.cls.span.path}:{c.cls.span.line}",
        }

    return {
        "profile": index.profile.name,
        "creators": [cinfo(c) for c in index.creators],
        "plugins": [cinfo(c) for c in index.plugins],
        "emissions": [
            {"op": e.op_type, "domain": e.domain, "attrs": [a.name for a in e.attrs], "at": f"{e.span.path}:{e.span.line}"}
            for e in index.emissions
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


def cmd_coverage(args) -> int:
    """`trtlint coverage MODEL...`: exit 0 when every node imports, 1 when a node is unsupported, restricted or has
    a problem (or a model cannot be read), 2 on a usage error."""
    from trtlint.coverage.model import render_text, to_json, to_markdown
    from trtlint.coverage.runner import coverage
    from trtlint.config.project import ProjectRootError

    for p in args.models:
        if not p.exists():
            print(f"trtlint: error: {p}: no such file or directory", file=sys.stderr)
            return 2
    if args.root is not None and not args.root.is_dir():
        print(f"trtlint: error: --root {args.root}: not a directory", file=sys.stderr)
        return 2
    try:
        report = coverage(args.models, tensorrt=args.tensorrt, no_project=args.no_project,
                          root=args.root.resolve() if args.root else None, jobs=args.jobs,
                          use_cache=not args.no_cache, profile=args.profile)
    except ProjectRootError as e:
        print(f"trtlint: error: {e} (give --root or --no-project)", file=sys.stderr)
        return 2
    if not report.models:
        print("trtlint: error: no .onnx model found in the paths given", file=sys.stderr)
        return 2
    # never silently: which project's creators the plugin nodes were judged against, or none
    if report.project is not None:
        print(f"trtlint: project {report.project} (its creators and TensorRT's plugin library judge the plugin nodes)",
              file=sys.stderr)
    else:
        print("trtlint: no project: plugin nodes are judged against TensorRT's plugin library only (give --root "
              "PROJECT for a project's creators)", file=sys.stderr)
    if args.format == "text" and args.output is None:
        from rich.console import Console

        render_text(report, Console() if sys.stdout.isatty() else Console(width=200))  # piped: no wrapping at 80
    else:
        if args.format == "text":
            import io

            from rich.console import Console

            buf = io.StringIO()
            render_text(report, Console(file=buf, width=160, no_color=True))
            text = buf.getvalue()
        else:
            text = to_json(report) + "\n" if args.format == "json" else to_markdown(report)
        if args.output is None:
            sys.stdout.write(text)
        else:
            args.output.write_text(text, encoding="utf-8")
    return 1 if report.failed else 0


def cmd_rule(args) -> int:
    from trtlint.checks.docs import rule_json, rule_markdown
    from trtlint.checks.registry import all_rules, find_rule

    if args.all:
        rules = all_rules()
    else:
        if not args.rule:
            print("trtlint: error: name a rule (e.g. `trtlint rule TRT101`) or pass --all", file=sys.stderr)
            return 2
        r = find_rule(args.rule)
        if r is None:
            from trtlint.checks.registry import suggestion

            print(f"trtlint: error: no rule '{args.rule}'{suggestion(args.rule)} (see `trtlint rules`)", file=sys.stderr)
            return 2
        rules = [r]
    if args.format == "json":
        print(json.dumps([rule_json(r) for r in rules], indent=2))
        return 0
    if args.format == "markdown":
        print("\n\n".join(rule_markdown(r) for r in rules))
        return 0
    from rich.console import Console
    from rich.markdown import Markdown

    console = Console()
    for r in rules:
        console.print(Markdown(rule_markdown(r)))
    return 0


def cmd_rules(args) -> int:
    from trtlint.checks.docs import rule_json
    from trtlint.checks.registry import all_rules

    rules = all_rules()
    if args.format == "json":
        print(json.dumps([rule_json(r) for r in rules], indent=2))
        return 0
    head = ("code", "name", "severity", "default", "fixable", "family", "summary")
    rows = [(r.code, r.name, r.severity.value, "yes" if r.default else "opt-in", "yes" if r.fixable else "no", r.family,
             r.summary()) for r in rules]
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head) - 1)]
    tty = sys.stdout.isatty()
    cols = shutil.get_terminal_size().columns if tty else 0
    # the table needs every column at full width plus its borders and padding (3 per column and 1)
    if tty and cols >= sum(widths) + max(len(row[-1]) for row in rows) + 3 * len(head) + 1:
        from rich.console import Console
        from rich.table import Table

        t = Table(title="trtlint rules")
        for col in head:
            t.add_column(col, no_wrap=True)
        for row in rows:
            t.add_row(*row)
        Console().print(t)
        return 0
    # piped, or a terminal too narrow for the table: one rule per line, columns aligned with spaces; on a
    # terminal the summary is cut to the width (`trtlint rule CODE` has it whole), never when piped
    try:
        ellipsis = "…".encode(sys.stdout.encoding or "ascii") and "…"
    except (UnicodeEncodeError, LookupError):
        ellipsis = "..."
    for row in [head, *rows]:
        line = "  ".join(v.ljust(w) for v, w in zip(row, widths)) + "  " + row[-1]
        if tty and len(line) > cols:
            line = line[: max(cols - len(ellipsis), 0)] + ellipsis
        print(line.rstrip())
    return 0


def cmd_config(args) -> int:
    from dataclasses import fields

    from trtlint.config.packs import detect_profile, load_packs

    from trtlint.config.project import project_root

    if not args.path.exists():
        print(f"trtlint: error: {args.path}: no such file or directory", file=sys.stderr)
        return 2
    found = project_root([args.path])
    s = load_checked_settings(args.path)  # the settings for PATH: its closest config (a nested one governs below it)
    packs = load_packs([Path(p) if Path(p).is_absolute() else s.root / p for p in s.rule_packs], root=s.root)
    prof = detect_profile(packs, found.root, s.profile)
    print(f"root: {found.root}")
    print(f"root found by: {found.reason}")
    print(f"config file: {s.config_file or '(none)'}")
    for ext in s.config_chain[1:]:
        print(f"extends: {ext}")
    print(f"profile: {prof.name} ({'detected' if s.profile == 'auto' else 'configured'})")
    for f in fields(s):
        if f.name in ("origins", "root", "config_file", "config_chain"):
            continue
        print(f"{f.name.replace('_', '-')} = {getattr(s, f.name)!r}    # {s.origins.get(f.name, 'default')}")
    return 0


def cmd_clean(args) -> int:
    from trtlint.store.cache import CACHE_DIR, human_size, remove_project_cache, remove_user_cache

    from trtlint.config.project import ProjectRootError, project_root

    if not args.path.exists():
        print(f"trtlint: error: {args.path}: no such file or directory", file=sys.stderr)
        return 2
    try:
        # the cache lives at the project root, whichever path inside the project is given
        where = project_root([args.path]).root
    except ProjectRootError as e:  # pragma: no cover - one path lies in one project
        print(f"trtlint: error: {e}", file=sys.stderr)
        return 2
    found = [remove_project_cache(where)]
    if found[0] is None:
        print(f"nothing to remove ({where / CACHE_DIR} does not exist)")
        found = []
    if args.all:
        user = remove_user_cache()
        if not user:
            from trtlint.frontends.cpp import pch_dir_candidates

            print(f"nothing to remove in the per-user cache ({', '.join(map(str, pch_dir_candidates()))}: none exists)")
        found += user
    failed = False
    for r in found:
        files = f"{r.files} file{'s' if r.files != 1 else ''}"
        if r.whole:
            print(f"removed {r.path} ({human_size(r.size)}, {files})")
        elif r.files or not r.errors:
            kept = f"kept {r.kept} file{'s' if r.kept != 1 else ''} trtlint did not write" if r.kept else ""
            if r.files:
                print(f"removed {files} ({human_size(r.size)}) from {r.path}" + (f"; {kept}" if kept else ""))
            else:
                print(f"nothing to remove in {r.path}" + (f" ({kept})" if kept else ""))
        for e in r.errors:
            print(f"trtlint: error: cannot remove {e}", file=sys.stderr)
            failed = True
    return 2 if failed else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
