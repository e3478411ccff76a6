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
from trtlint.checks.registry import load_checked_settings
from trtlint.cli.check import cmd_check
from trtlint.config.settings import ConfigError


def build_parser(only: Optional[str] = None) -> argparse.ArgumentParser:
    """The command line's parser; ``only``: the parser of that command alone under the top level (each
    ``add_parser`` costs argparse a few message-catalogue look-ups: a warm ``check`` builds only its own)."""
    p = argparse.ArgumentParser(prog="trtlint", description="Static analyzer for TensorRT plugin and converter code.")
    p.add_argument("--version", action="version", version=f"trtlint {__version__}")
    sub = p.add_subparsers(dest="command")
    if only == "check":
        _add_check_parser(sub)
        return p
    _add_check_parser(sub)
    _add_other_parsers(sub)
    return p


def _add_check_parser(sub) -> None:

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


def _add_other_parsers(sub) -> None:
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
    ls.add_argument("--debounce-ms", type=int, default=None, help="wait this long after the last edit before checking (default 25)")
    ls.add_argument("--log-file", help="write the server's log to FILE")

    cl = sub.add_parser("clean", help="remove .trtlint_cache/ (--all: and the per-user cache)")
    cl.add_argument("path", nargs="?", type=Path, default=Path("."))
    cl.add_argument(
        "--all",
        action="store_true",
        help="also remove the per-user cache of precompiled headers ($XDG_CACHE_HOME/trtlint/pch, default "
        "~/.cache/trtlint/pch; $TRTLINT_PCH_DIR when set)",
    )


def add_confirm_parser(sub) -> None:
    from trtlint.cli.confirm_args import add_arguments

    add_arguments(sub.add_parser("confirm", help="reproduce findings with TensorRT (repro folders; runs them where TensorRT and a GPU are)"))


def main(argv: Optional[list[str]] = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser("check" if words[:1] == ["check"] else None)
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
            code = cmd_check(args)
            # the interpreter's exit runs one last collection even with the collector disabled: it traversed the
            # run's objects once more (~10 ms after a one-file run on Edge-LLM). Frozen, they are out of its reach
            # (the exit itself stays as it was: atexit handlers, flushes)
            gc.freeze()
            return code
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
    # never silently: which project's creators the plugin nodes were judged against (the line `trtlint check`
    # prints), or that there is none and why
    if report.project is not None:
        print(f"trtlint: project {report.project} (profile {report.profile}, {report.profile_source}); its creators and TensorRT's "
              f"plugin library judge the plugin nodes, against TensorRT {report.tensorrt}", file=sys.stderr)
    else:
        why = "" if args.no_project else f" ({report.root_reason})" if report.root_reason else ""
        print(f"trtlint: no project{why}: plugin nodes are judged against TensorRT's plugin library only (give --root "
              f"PROJECT for a project's creators), against TensorRT {report.tensorrt}", file=sys.stderr)
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
