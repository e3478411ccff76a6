"""``trtlint check`` options for adopting trtlint in a codebase that already has findings.

- baseline (``--baseline FILE``, ``--write-baseline[=FILE]``, config ``baseline = FILE``): see baseline.py;
- fixes (``--fix``, ``--unsafe-fixes``, ``--diff``, ``--fix-only``, ``--exit-non-zero-on-fix``): see fixes.py;
- ``--add-suppressions[=REASON]``: a suppression comment with a reason at every current finding.

The CLI calls :func:`add_arguments` and :func:`process`; the logic lives in baseline.py and fixes.py.
Messages about what was fixed, refused, hidden or pruned go to stderr, so that stdout stays the report.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Callable, Optional

from trtlint.base import safeio
from trtlint.adoption.baseline import BaselineError, apply_baseline, describe, load_baseline, updated_baseline, write_baseline
from trtlint.base.diagnostics import Diagnostic, Edit, Fix
from trtlint.base.fixes import SAFE, FixResult, edit_span, plan_fixes, unsafe_only, write_fixes

DEFAULT_REASON = "existing finding when trtlint was adopted"
_COMMENT = {"#": (".py", ".pyi", ".cmake", ".txt", ".yaml", ".yml", ".toml"), "//": (".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh", ".h", ".hh", ".hpp", ".hxx", ".inl", ".inc")}
_SUPPRESS = re.compile(r"(?://|#)\s*trtlint:\s*ignore(?![\w-])(\[([^\]]*)\])?")  # not `ignore-file`


def add_arguments(c) -> None:
    g = c.add_argument_group("adoption: baseline, fixes, suppressions")
    g.add_argument("--baseline", type=Path, metavar="FILE", help="hide the findings recorded in FILE; report only new ones")
    g.add_argument(
        "--write-baseline",
        nargs="?",
        const="",
        metavar="FILE",
        help="record today's findings in FILE (default: the configured baseline), pruning fixed ones; reports nothing",
    )
    g.add_argument("--fix", action="store_true", help="apply safe fixes (and unsafe ones with --unsafe-fixes)")
    g.add_argument("--unsafe-fixes", action="store_true", help="with --fix/--diff/--fix-only: apply unsafe fixes too")
    g.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; write nothing (implies --fix-only)")
    g.add_argument("--fix-only", action="store_true", help="apply fixes and report nothing else")
    g.add_argument("--exit-non-zero-on-fix", action="store_true", help="exit 1 when a fix was applied, even if nothing remains")
    g.add_argument(
        "--add-suppressions",
        nargs="?",
        const=DEFAULT_REASON,
        metavar="REASON",
        help="write `trtlint: ignore[CODE] -- REASON` at every current finding (a one-time adoption)",
    )


def _err(msg: str) -> None:
    print(msg, file=sys.stderr)


class Outcome:
    """What :func:`process` decided: the diagnostics to report, or an exit code that ends the run."""

    def __init__(self, diags: list[Diagnostic], exit_code: Optional[int] = None, fixed: int = 0, refused: int = 0):
        self.diags = diags
        self.exit_code = exit_code
        self.fixed = fixed
        self.refused = refused

    def final_exit(self, code: int, args) -> int:
        if self.refused and code == 0:
            code = 1
        if getattr(args, "exit_non_zero_on_fix", False) and self.fixed:
            code = 1
        return code


def process(
    args,
    settings,
    root: Path,
    diags: list[Diagnostic],
    digests: dict,
    rerun: Callable[[], tuple[list[Diagnostic], dict]],
    in_path: Optional[Callable[[str], bool]] = None,
    rules_run: Optional[set] = None,
) -> Outcome:
    """Apply the adoption options to a run's diagnostics. ``rerun()`` runs the check again (after files were
    written) and returns (diagnostics, digests). ``in_path(path)`` says whether the run reported on a file
    (None: all), ``rules_run`` the codes of the rules that ran (None: all); baseline entries outside them are
    neither fixed nor pruned."""

    def in_scope(e) -> bool:
        return (in_path is None or in_path(e.path)) and (rules_run is None or e.code in rules_run)

    fixed = refused = 0
    baseline_path = _baseline_path(args, settings)
    known = None  # the baseline that hides findings (not when writing one)
    if baseline_path is not None and args.write_baseline is None:
        try:
            known = load_baseline(baseline_path)
        except BaselineError as e:
            _err(f"trtlint: error: {e}")
            return Outcome([], exit_code=2)

    def visible(ds: list[Diagnostic]) -> list[Diagnostic]:
        """What a fix may touch: findings the baseline hides are left alone, as suppressed ones are."""
        return apply_baseline(ds, known).new if known is not None else ds

    if args.add_suppressions is not None:
        if args.add_suppressions and not args.paths and Path(args.add_suppressions).exists():
            _err(
                f"trtlint: error: '{args.add_suppressions}' was taken as the suppression reason; write "
                "--add-suppressions=REASON, or give the paths first (trtlint check PATH --add-suppressions)"
            )
            return Outcome([], exit_code=2)
        return _add_suppressions(visible(diags), root, digests, args.add_suppressions or DEFAULT_REASON)
    fixing = args.fix or args.diff or args.fix_only
    if fixing:
        if args.diff:
            plan = plan_fixes(visible(diags), root, digests, unsafe=args.unsafe_fixes)
            for m in plan.refused:
                _err(f"trtlint: {m}")
            sys.stdout.write(plan.diff())
            n = len(plan.fixed)
            left = 0 if args.unsafe_fixes else unsafe_only(visible(diags))
            hint = (
                f" {left} more fix{'es' if left != 1 else ''} available with --unsafe-fixes "
                f"(--diff --unsafe-fixes shows {'it' if left == 1 else 'them'})."
                if left
                else ""
            )
            _err(f"Would fix {n} finding{'s' if n != 1 else ''} ({len(plan.files)} file{'s' if len(plan.files) != 1 else ''}); nothing written.{hint}")
            return Outcome([], exit_code=1 if (plan.files or plan.refused) else 0)
        for _round in range(8):  # a fix deferred by an overlapping one lands in a later round
            plan = plan_fixes(visible(diags), root, digests, unsafe=args.unsafe_fixes)
            write_fixes(plan, root)
            for m in plan.refused:
                _err(f"trtlint: {m}")
            refused += len(plan.refused)
            fixed += len(plan.fixed)
            if not plan.files:
                break
            diags, digests = rerun()
            if plan.refused:
                break
        unsafe_left = 0 if args.unsafe_fixes else unsafe_only(visible(diags))
        hint = f"; {unsafe_left} more with --unsafe-fixes" if unsafe_left else ""
        _err(f"Fixed {fixed} finding{'s' if fixed != 1 else ''}{hint}.")
        if args.fix_only:
            code = 1 if (refused or (args.exit_non_zero_on_fix and fixed)) else 0
            return Outcome([], exit_code=code, fixed=fixed, refused=refused)
    if args.write_baseline is not None:
        if baseline_path is None:
            _err("trtlint: error: --write-baseline needs a FILE (or `baseline = FILE` in the config)")
            return Outcome([], exit_code=2)
        old = None
        if baseline_path.is_file():
            try:
                old = load_baseline(baseline_path)
            except BaselineError as e:
                _err(f"trtlint: warning: {e}; writing a fresh one")
        try:
            b, pruned = updated_baseline(old, diags, in_scope)
            write_baseline(baseline_path, b)
        except BaselineError as e:
            _err(f"trtlint: error: {e}")
            return Outcome([], exit_code=2)
        total = sum(e.count for e in b.entries.values())
        _err(f"Wrote {baseline_path}: {total} finding{'s' if total != 1 else ''} ({len(b.entries)} entries).")
        for e in pruned:
            _err(f"  pruned (fixed): {describe(e)}")
        return Outcome([], exit_code=0, fixed=fixed, refused=refused)
    if known is not None:
        res = apply_baseline(diags, known, in_scope)
        if res.known:
            _err(f"baseline {baseline_path}: {len(res.known)} known finding{'s' if len(res.known) != 1 else ''} hidden")
        if res.fixed:
            n = sum(e.count for e in res.fixed)
            _err(
                f"baseline {baseline_path}: {n} finding{'s' if n != 1 else ''} no longer occur{'s' if n == 1 else ''} "
                "(fixed; `--write-baseline` prunes them):"
            )
            for e in res.fixed:
                _err(f"  fixed: {describe(e)}")
        diags = res.new
    return Outcome(diags, fixed=fixed, refused=refused)


def _baseline_path(args, settings) -> Optional[Path]:
    if args.write_baseline:
        return Path(args.write_baseline)
    if args.baseline is not None:
        return args.baseline
    if getattr(settings, "baseline", None):
        return Path(settings.baseline)
    return None


# --add-suppressions ---------------------------------------------------------------------------------------


def _marker(path: str) -> Optional[str]:
    low = path.lower()
    for marker, exts in _COMMENT.items():
        if low.endswith(exts) or (marker == "#" and Path(low).name == "cmakelists.txt"):
            return marker
    return None


def _python_string_lines(text: str) -> set[int]:
    """Lines on which a comment cannot be appended in Python: inside a multi-line string or ending with a
    backslash continuation."""
    import io
    import tokenize

    out: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
                out.update(range(tok.start[0], tok.end[0]))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return out


def _add_suppressions(diags: list[Diagnostic], root: Path, digests: dict, reason: str) -> Outcome:
    reason = " ".join(reason.split())
    by_line: dict[tuple[str, int], list[str]] = {}
    skipped: list[str] = []
    for d in diags:
        if d.code == "TRT002":
            continue  # an unused suppression is removed (--fix), not suppressed
        codes = by_line.setdefault((d.span.path, d.span.line), [])
        # and the codes of the findings it took over on the same call: suppressed alone, they would reappear
        for code in (d.code, *d.also_codes()):
            if code not in codes:
                codes.append(code)
    texts: dict[str, Optional[list[str]]] = {}
    blocked: dict[str, set[int]] = {}
    pseudo: list[Diagnostic] = []
    for (path, line), codes in sorted(by_line.items()):
        marker = _marker(path)
        if marker is None:
            skipped.append(f"{path}:{line}: no comment syntax for this file; not suppressed ({', '.join(codes)})")
            continue
        if path not in texts:
            try:
                texts[path] = safeio.read_bytes(root / path, root=root, limit=safeio.FRAME_LIMIT).decode("utf-8").split("\n")
            except (OSError, UnicodeDecodeError):
                texts[path] = None
            if texts[path] is not None and marker == "#" and path.endswith((".py", ".pyi")):
                blocked[path] = _python_string_lines("\n".join(texts[path]))
        lines = texts[path]
        if lines is None or not (1 <= line <= len(lines)):
            skipped.append(f"{path}:{line}: cannot read the line; not suppressed ({', '.join(codes)})")
            continue
        text = lines[line - 1].rstrip("\r")
        # (a `//` comment appended inside a C++ block comment is harmless and still read by the scanner)
        if line in blocked.get(path, set()) or text.rstrip().endswith("\\"):
            skipped.append(f"{path}:{line}: inside a multi-line string or a continued line; not suppressed ({', '.join(codes)})")
            continue
        m = _SUPPRESS.search(text)
        if m and m.group(1):
            a, b = m.start(2), m.end(2)
            have = [x.strip() for x in m.group(2).split(",") if x.strip()]
            merged = have + [c for c in codes if c not in have]
            edit = Edit(edit_span(path, line, text, a, b), ", ".join(merged))
        elif m:
            continue  # a bare `trtlint: ignore` covers everything already
        else:
            end = len(text)
            edit = Edit(edit_span(path, line, text, end, end), f"  {marker} trtlint: ignore[{', '.join(codes)}] -- {reason}")
        pseudo.append(
            Diagnostic(code=codes[0], name="", severity=diags[0].severity, message="", span=edit.span, fix=Fix("add a suppression", (edit,), SAFE))
        )
    plan: FixResult = plan_fixes(pseudo, root, digests)
    write_fixes(plan, root)
    for m in skipped + plan.refused:
        _err(f"trtlint: {m}")
    n = len(plan.fixed)
    _err(f"Added {n} suppression{'s' if n != 1 else ''} in {len(plan.files)} file{'s' if len(plan.files) != 1 else ''}.")
    return Outcome([], exit_code=1 if (skipped or plan.refused) else 0)
