"""``trtlint confirm [PATHS] [--from FILE] [--plugin-lib PATH | --build-cmd CMD] [--model FILE.onnx] [--out DIR]
[--timeout S]``. Exit codes: 0 no finding confirmed, 1 at least one confirmed, 2 usage or input error."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from trtlint.cli.confirm_args import add_arguments  # noqa: F401 (defined apart so `trtlint check` need not import confirm)


def _err(msg: str) -> int:
    print(f"trtlint: error: {msg}", file=sys.stderr)
    return 2


def _newest_library(root: Path, since: float):
    libs = [p for p in root.rglob("*.so") if p.is_file() and p.stat().st_mtime >= since and ".trtlint_cache" not in p.parts]
    return max(libs, key=lambda p: p.stat().st_mtime) if libs else None


def cmd_confirm(args) -> int:
    from .. import __version__
    from ..checks.registry import load_checked_settings
    from trtlint.config.settings import split_csv
    from trtlint.config.project import ProjectRootError, project_root
    from ..pipeline.run import run
    from ..report import ReportContext
    from . import ConfirmOptions, confirm_findings
    from . import report as rep
    from .findings import FindingsError, load_findings
    from .model import ShapeSpecError, load_plugin_config
    from .runner import probe_environment

    paths = args.paths or [Path(".")]
    for p in paths + [x for x in (args.from_file, args.model, args.inputs, args.trt_include) if x is not None]:
        if not p.exists():
            return _err(f"{p}: no such file or directory")
    if args.plugin_lib is not None and args.build_cmd is None and not args.plugin_lib.is_file():
        return _err(f"{args.plugin_lib}: no such file (--plugin-lib)")
    plugin_cfg = {}
    if args.inputs is not None:
        try:
            plugin_cfg = load_plugin_config(args.inputs)
        except (ShapeSpecError, ValueError, OSError) as e:
            return _err(f"--inputs: {e}")
    try:
        root = project_root(paths).root
    except ProjectRootError as e:
        return _err(str(e))
    settings = load_checked_settings(root, {"profile": args.profile}, config_path=args.config)
    loaded = None
    if args.from_file is not None:
        try:
            loaded = load_findings(args.from_file)
        except FindingsError as e:
            return _err(str(e))
    # the index (and, without --from, the findings): static, as `trtlint check` runs it
    result = run(settings, None, report_only=None, jobs=args.jobs, use_cache=not args.no_cache)
    diags = loaded if loaded is not None else list(result.diagnostics)
    sel = split_csv(args.select)
    if sel:
        diags = [d for d in diags if any(d.code.upper().startswith(s.upper()) or d.name == s for s in sel)]

    lib = args.plugin_lib
    if args.build_cmd:
        t0 = time.time()
        print(f"trtlint confirm: building: {args.build_cmd}", file=sys.stderr)
        try:
            b = subprocess.run(args.build_cmd, shell=True, cwd=str(root), timeout=args.build_timeout, stdin=subprocess.DEVNULL)
            if b.returncode != 0:
                print(f"trtlint confirm: the build command failed (exit {b.returncode}): findings that need the library are skipped", file=sys.stderr)
        except subprocess.TimeoutExpired:
            print(f"trtlint confirm: the build command timed out after {args.build_timeout:g} s", file=sys.stderr)
        if lib is None:
            lib = _newest_library(root, t0)
            if lib is not None:
                print(f"trtlint confirm: using the library the build wrote: {lib}", file=sys.stderr)
    if lib is not None and not lib.is_file():
        lib = None

    env = probe_environment()
    opts = ConfirmOptions(
        out_dir=args.out,
        plugin_lib=lib,
        model=args.model,
        plugin_config=plugin_cfg,
        plugin_config_origin=str(args.inputs or ""),
        timeout=args.timeout,
        trt_include=args.trt_include,
        extra_includes=list(args.include),
        run=not args.no_run,
    )
    results = confirm_findings(diags, result.index, opts, env)
    if args.format == "json":
        out = rep.render_json(results, env, __version__)
    elif args.format == "sarif":
        ctx = ReportContext(root=root, rules=result.rules, files_checked=result.files_checked, tool_version=__version__)
        out = rep.render_sarif(results, env, ctx)
    else:
        out = rep.render_text(results, env)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(out, encoding="utf-8")
    else:
        sys.stdout.write(out)
    return 1 if any(r.status == "confirmed" for r in results) else 0
