"""Fixes: apply the edits rules attach to their diagnostics (``--fix``, ``--unsafe-fixes``, ``--diff``).

Applicability follows ruff: a *safe* fix keeps the code's meaning (``--fix`` applies it); an *unsafe* fix
may change it, e.g. renaming a plugin name to the closest registered one (applied only with
``--unsafe-fixes``); a *display-only* fix is shown but never applied.

Edit spans are exact extents from the frontends: lines 1-based, columns 1-based with an exclusive end, in
the unit of the frontend that produced them, characters for Python (libcst) and bytes for C/C++/CUDA
(libclang). Rules that compute an edit themselves use :func:`edit_span` so the units agree.

Writing is careful:
- a file whose content differs from what the run read (its discovery digest) is refused with a clear
  message, never overwritten; so is one that changes while the edits are computed;
- overlapping edits: the first fix (in source order) wins; the others wait for the next run;
- an edited Python file must still parse (libcst), else the file's fixes are dropped, with a message;
- each file is written atomically: a temp file beside it, then a rename (mode kept); a read-only file is
  refused, and a write that fails half-way (an interrupt, a full disk) leaves the old file and no temp file.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from trtlint.base import safeio
from trtlint.base.diagnostics import Diagnostic, Edit, Fix
from trtlint.base.digest import digest_bytes
from trtlint.base.span import Span

SAFE, UNSAFE, DISPLAY = "safe", "unsafe", "display-only"
_BYTE_COLUMNS = (".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh", ".h", ".hh", ".hpp", ".hxx", ".inl", ".inc")


def byte_columns(path: str) -> bool:
    """Whether spans of ``path`` count columns in bytes (libclang) rather than characters (libcst)."""
    return path.lower().endswith(_BYTE_COLUMNS)


def edit_span(path: str, line_no: int, line_text: str, start: int, end: int) -> Span:
    """The span of characters ``[start, end)`` of line ``line_no`` (text ``line_text``) in ``path``'s units."""
    if byte_columns(path):
        s = len(line_text[:start].encode("utf-8"))
        e = len(line_text[:end].encode("utf-8"))
    else:
        s, e = start, end
    return Span(path, line_no, s + 1, line_no, e + 1)


def delete_line(path: str, line_no: int) -> Span:
    """The span of a whole line with its line break."""
    return Span(path, line_no, 1, line_no + 1, 1)


def applicable(fix: Optional[Fix], unsafe: bool) -> bool:
    if fix is None or not fix.edits:
        return False
    return fix.applicability == SAFE or (unsafe and fix.applicability == UNSAFE)


def unsafe_only(diags: Iterable[Diagnostic]) -> int:
    """How many of ``diags`` have a fix that only ``--unsafe-fixes`` applies (what a run without it leaves)."""
    return sum(1 for d in diags if applicable(d.fix, True) and not applicable(d.fix, False))


class FixError(Exception):
    pass


def _offsets(text: str, path: str) -> list[int]:
    """Start offset of each line (index 0 = line 1), in the unit of ``path``'s columns, plus the end."""
    starts = [0]
    if byte_columns(path):
        data = text.encode("utf-8")
        i = data.find(b"\n")
        while i != -1:
            starts.append(i + 1)
            i = data.find(b"\n", i + 1)
        starts.append(len(data))
    else:
        i = text.find("\n")
        while i != -1:
            starts.append(i + 1)
            i = text.find("\n", i + 1)
        starts.append(len(text))
    return starts


def _range(span: Span, starts: list[int], size: int) -> tuple[int, int]:
    nlines = len(starts) - 1

    def pos(line: int, col: int) -> int:
        if line < 1 or line > nlines + 1:
            raise FixError(f"line {line} is outside the file")
        base = starts[line - 1] if line <= nlines else size
        return min(base + max(col, 1) - 1, size)

    a = pos(span.line, span.col)
    b = pos(span.end_line or span.line, span.end_col or span.col)
    if b < a:
        raise FixError("an edit ends before it starts")
    return a, b


def apply_edits(text: str, path: str, edits: Iterable[Edit]) -> str:
    """``text`` with ``edits`` (non-overlapping) applied."""
    starts = _offsets(text, path)
    use_bytes = byte_columns(path)
    buf = text.encode("utf-8") if use_bytes else text
    size = len(buf)
    ranges = sorted(((*_range(e.span, starts, size), e.text) for e in edits), key=lambda r: (r[0], r[1]))
    out = []
    cur = 0
    for a, b, new in ranges:
        if a < cur:
            raise FixError("overlapping edits")
        out.append(buf[cur:a])
        out.append(new.encode("utf-8") if use_bytes else new)
        cur = b
    out.append(buf[cur:])
    return b"".join(out).decode("utf-8") if use_bytes else "".join(out)


@dataclass
class FileResult:
    path: str
    before: str
    after: str
    fixed: list[Diagnostic] = field(default_factory=list)


@dataclass
class FixResult:
    files: list[FileResult] = field(default_factory=list)  # files with a change (written unless diff-only)
    fixed: list[Diagnostic] = field(default_factory=list)  # diagnostics whose fix was applied
    refused: list[str] = field(default_factory=list)  # messages: files left alone, and why
    written: bool = False

    def diff(self) -> str:
        out = []
        for f in self.files:
            out.extend(
                difflib.unified_diff(
                    f.before.splitlines(keepends=True),
                    f.after.splitlines(keepends=True),
                    fromfile=f"a/{f.path}",
                    tofile=f"b/{f.path}",
                )
            )
        text = "".join(out)
        return text if not text or text.endswith("\n") else text + "\n"


def _python_ok(text: str) -> Optional[str]:
    import libcst

    try:
        libcst.parse_module(text)
    except libcst.ParserSyntaxError as e:
        return str(e).splitlines()[0] if str(e) else "syntax error"
    except RecursionError:
        return None
    return None


def plan_fixes(
    diags: Iterable[Diagnostic], root: Path, digests: dict[str, Optional[str]], *, unsafe: bool = False
) -> FixResult:
    """Compute the new content of each file with an applicable fix; nothing is written."""
    root = Path(root)
    res = FixResult()
    by_file: dict[str, list[Diagnostic]] = {}
    for d in diags:
        if not applicable(d.fix, unsafe):
            continue
        paths = {e.span.path for e in d.fix.edits}
        if len(paths) != 1:  # a fix spanning files is applied whole or not at all: keep it simple, one file
            res.refused.append(f"{d.span.path}:{d.span.line}: {d.code} fix edits several files; not applied")
            continue
        by_file.setdefault(paths.pop(), []).append(d)
    for rel in sorted(by_file):
        p = root / rel
        try:
            data = safeio.read_bytes(p, root=root, limit=safeio.FRAME_LIMIT)
        except OSError as e:
            res.refused.append(f"{rel}: cannot read ({e.strerror}); its fixes were not applied")
            continue
        want = digests.get(rel)
        if want is not None and digest_bytes(data) != want:
            res.refused.append(f"{rel}: changed since trtlint read it; its fixes were not applied (run trtlint again)")
            continue
        try:
            before = data.decode("utf-8")
        except UnicodeDecodeError:
            res.refused.append(f"{rel}: not UTF-8; its fixes were not applied")
            continue
        chosen: list[Diagnostic] = []
        taken: list[tuple[int, int]] = []
        starts = _offsets(before, rel)
        size = starts[-1]
        buf = before.encode("utf-8") if byte_columns(rel) else before
        for d in sorted(by_file[rel], key=lambda d: d.sort_key()):
            try:
                rs = [_range(e.span, starts, size) for e in d.fix.edits]
                for e, (a, b) in zip(d.fix.edits, rs):
                    if e.expect:
                        held = buf[a:b].decode("utf-8", "replace") if isinstance(buf, bytes) else buf[a:b]
                        if held != e.expect:
                            raise FixError(f"expected '{e.expect}' at {e.span.line}:{e.span.col}, found '{held}'")
            except FixError as e:
                res.refused.append(f"{rel}:{d.span.line}: {d.code} fix not applied: {e}")
                continue
            # overlapping (or touching, for two insertions at one place) edits wait for the next run
            if any(a < tb and ta < b or (a == b == ta == tb) for a, b in rs for ta, tb in taken):
                continue
            chosen.append(d)
            taken.extend(rs)
        if not chosen:
            continue
        try:
            after = apply_edits(before, rel, [e for d in chosen for e in d.fix.edits])
        except FixError as e:
            res.refused.append(f"{rel}: fixes not applied: {e}")
            continue
        if after == before:
            continue
        if rel.endswith((".py", ".pyi")) and _python_ok(before) is None:  # (a file that did not parse stays as bad)
            err = _python_ok(after)
            if err is not None:
                res.refused.append(f"{rel}: fixes would leave invalid Python ({err}); not applied")
                continue
        res.files.append(FileResult(rel, before, after, chosen))
        res.fixed.extend(chosen)
    return res


def write_fixes(res: FixResult, root: Path) -> None:
    """Write each planned file atomically, refusing one that changed while the fixes were computed."""
    root = Path(root)
    kept = []
    for f in res.files:
        p = root / f.path
        try:
            now = p.read_bytes()
        except OSError as e:
            res.refused.append(f"{f.path}: cannot read ({e.strerror}); its fixes were not applied")
            continue
        if now != f.before.encode("utf-8"):
            res.refused.append(f"{f.path}: changed since trtlint read it; its fixes were not applied (run trtlint again)")
            continue
        try:
            mode = p.stat().st_mode & 0o7777
            if not mode & 0o222:  # the user made it read-only: replacing it (the directory allows it) would undo that
                res.refused.append(f"{f.path}: read-only; its fixes were not applied")
                continue
            fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".trtlint.tmp", dir=str(p.parent))
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(f.after.encode("utf-8"))
                os.chmod(tmp, mode)
                os.replace(tmp, p)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError as e:
            res.refused.append(f"{f.path}: cannot write ({e.strerror}); its fixes were not applied")
            continue
        kept.append(f)
    fixed_ids = {id(d) for f in kept for d in f.fixed}
    res.fixed = [d for d in res.fixed if id(d) in fixed_ids]
    res.files = kept
    res.written = True


def rename_edit(span: Optional[Span], old: str, new: str) -> Optional[Edit]:
    """An edit that renames ``old`` to ``new`` where ``span`` writes it: an identifier (the span is exactly
    the name), a string literal holding it (``"old"``), or a string literal ending in it (``"dom::old"``,
    a dict entry ``"op": "old"``). The edit carries ``expect=old``, so a span that does not hold the name
    is refused at apply time rather than mangled. None for spans over several lines."""
    if span is None or not old or (span.end_line or span.line) != span.line or not span.end_col:
        return None
    width = span.end_col - span.col
    unit = (lambda s: len(s.encode("utf-8"))) if byte_columns(span.path) else len
    n = unit(old)
    if width == n:
        a = span.col
    elif width >= n + 2:
        a = span.end_col - 1 - n  # before the closing quote
    else:
        return None
    return Edit(Span(span.path, span.line, a, span.line, a + n), new, expect=old)


def close_candidate(name: str, candidates: Iterable[str], cutoff: float = 0.8) -> Optional[str]:
    """The one candidate close to ``name`` (case-insensitive similarity >= cutoff), or None when there is
    none or more than one: a rename fix is offered only when one edit is clearly right."""
    import difflib

    cands = sorted(set(c for c in candidates if c != name))
    low = [c.lower() for c in cands]
    hits = difflib.get_close_matches(name.lower(), low, n=2, cutoff=cutoff)
    if len(hits) != 1:
        return None
    return cands[low.index(hits[0])]
