"""Baselines: adopt trtlint in a codebase that already has findings.

``trtlint check --write-baseline FILE`` records today's findings; ``--baseline FILE`` (or ``baseline = FILE``
in the config) hides them and reports only new ones. Entries are matched by fingerprint
(:attr:`trtlint.base.diagnostics.Diagnostic.fingerprint`): rule, path, the symbol involved and the normalised
source snippet at the finding, never the line number, so edits that shift lines or reformat other code keep
a finding known. Several findings with one fingerprint are counted: a baseline entry with ``count = 2``
hides two of them, a third one is new.

Entries that no longer occur are *fixed*: reported as information (never a failure); writing the baseline
again prunes them.

The file is JSON, sorted, one entry per fingerprint, so that it diffs well in review::

    {"version": 1, "tool": "trtlint", "findings": [
      {"fingerprint": "...", "code": "TRT101", "path": "py/translate.py", "symbol": "FooPlugn",
       "message": "...", "line": 7, "count": 1}]}

``line`` and ``message`` are for people reading the file; matching never uses them.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Optional

from trtlint.base import safeio
from trtlint.base.diagnostics import Diagnostic

FORMAT_VERSION = 1
_SUPPRESSION = re.compile(r"(?://|#)\s*trtlint:\s*ignore(?:\[[^\]]*\])?.*$")
_WS = re.compile(r"\s+")


class BaselineError(Exception):
    """A baseline file that cannot be read or written: the message names the file."""


def normalise_snippet(line: str) -> str:
    """The source line as a fingerprint sees it: a trailing suppression comment and all whitespace dropped,
    so re-indenting or re-spacing the line, or suppressing something else on it, keeps the fingerprint."""
    return _WS.sub("", _SUPPRESSION.sub("", line))


_MAX_SNIPPET_FILE = safeio.FRAME_LIMIT


def attach_snippets(diags: Iterable[Diagnostic], root: Path) -> list[Diagnostic]:
    """Each diagnostic with its normalised snippet (the text of its primary line; the logical location for
    files that have no lines, e.g. ONNX models). Every file is read once."""
    lines_of: dict[str, Optional[list[str]]] = {}
    out = []
    for d in diags:
        if d.snippet:
            out.append(d)
            continue
        rel = d.span.path
        if rel not in lines_of:
            # never through a link, never a FIFO/device (could block), never a huge skipped file
            data = safeio.try_read_bytes(Path(root) / rel, root=root, limit=_MAX_SNIPPET_FILE)
            lines_of[rel] = None if data is None or b"\0" in data[:8192] else data.decode("utf-8", errors="replace").splitlines()
        lines = lines_of[rel]
        snip = ""
        if lines is not None and 1 <= d.span.line <= len(lines):
            snip = normalise_snippet(lines[d.span.line - 1])
        if not snip and d.logical:
            snip = d.logical
        out.append(replace(d, snippet=snip) if snip else d)
    return out


@dataclass
class Entry:
    fingerprint: str
    code: str
    path: str
    symbol: str = ""
    message: str = ""
    line: int = 0
    count: int = 1

    def to_dict(self) -> dict:
        return {
            "fingerprint": self.fingerprint,
            "code": self.code,
            "path": self.path,
            "symbol": self.symbol,
            "message": self.message,
            "line": self.line,
            "count": self.count,
        }


@dataclass
class Baseline:
    entries: dict[str, Entry] = field(default_factory=dict)  # fingerprint -> entry

    @classmethod
    def from_diagnostics(cls, diags: Iterable[Diagnostic]) -> "Baseline":
        b = cls()
        for d in sorted(diags, key=lambda d: d.sort_key()):
            fp = d.fingerprint
            if fp in b.entries:
                b.entries[fp].count += 1
            else:
                b.entries[fp] = Entry(fp, d.code, d.span.path, d.symbol, d.message, d.span.line)
        return b

    def to_json(self) -> str:
        items = sorted(self.entries.values(), key=lambda e: (e.path, e.code, e.line, e.fingerprint))
        data = {"version": FORMAT_VERSION, "tool": "trtlint", "findings": [e.to_dict() for e in items]}
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def load_baseline(path: Path) -> Baseline:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"{path}: baseline file not found (create it with --write-baseline {path})") from None
    except OSError as e:
        raise BaselineError(f"{path}: cannot read the baseline: {e.strerror}") from None
    except ValueError as e:
        raise BaselineError(f"{path}: not a trtlint baseline (invalid JSON: {e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("findings"), list):
        raise BaselineError(f"{path}: not a trtlint baseline (expected an object with a 'findings' list)")
    if data.get("version") != FORMAT_VERSION:
        raise BaselineError(f"{path}: baseline format version {data.get('version')!r} is not supported (expected {FORMAT_VERSION})")
    b = Baseline()
    for i, item in enumerate(data["findings"]):
        if not isinstance(item, dict) or not isinstance(item.get("fingerprint"), str) or not isinstance(item.get("code"), str):
            raise BaselineError(f"{path}: findings[{i}] lacks a 'fingerprint' or 'code' string")
        count = item.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise BaselineError(f"{path}: findings[{i}].count must be a positive integer")
        e = Entry(
            fingerprint=item["fingerprint"],
            code=item["code"],
            path=str(item.get("path", "")),
            symbol=str(item.get("symbol", "")),
            message=str(item.get("message", "")),
            line=int(item.get("line", 0) or 0),
            count=count,
        )
        if e.fingerprint in b.entries:
            b.entries[e.fingerprint].count += e.count
        else:
            b.entries[e.fingerprint] = e
    return b


@dataclass
class BaselineResult:
    new: list[Diagnostic]  # findings the baseline does not know: reported
    known: list[Diagnostic]  # findings the baseline hides
    fixed: list[Entry]  # baseline entries (with the count missing) that no longer occur


def apply_baseline(diags: list[Diagnostic], baseline: Baseline, in_scope=None) -> BaselineResult:
    """Split ``diags`` into new and known. Findings that share a fingerprint are matched in source order,
    so when one more occurs than the baseline counts, the last one is new. ``in_scope(entry)`` limits the
    entries that can be *fixed* to what this run looked at: checking one file, or one rule, does not fix the
    others."""
    remaining = {fp: e.count for fp, e in baseline.entries.items()}
    new, known = [], []
    for d in sorted(diags, key=lambda d: d.sort_key()):
        fp = d.fingerprint
        if remaining.get(fp, 0) > 0:
            remaining[fp] -= 1
            known.append(d)
        else:
            new.append(d)
    fixed = []
    for fp, left in remaining.items():
        e = baseline.entries[fp]
        if left > 0 and (in_scope is None or in_scope(e)):
            fixed.append(replace(e, count=left))
    fixed.sort(key=lambda e: (e.path, e.line, e.code))
    return BaselineResult(new=new, known=known, fixed=fixed)


def updated_baseline(old: Optional[Baseline], diags: list[Diagnostic], in_scope=None) -> tuple[Baseline, list[Entry]]:
    """The baseline to write: today's findings, plus the old entries this run did not look at (other files,
    rules not selected; ``in_scope(entry)`` says).
    Returns it with the old entries it prunes (fixed findings)."""
    b = Baseline.from_diagnostics(diags)
    pruned: list[Entry] = []
    if old is not None:
        for fp, e in old.entries.items():
            if in_scope is not None and not in_scope(e):
                if fp in b.entries:
                    b.entries[fp].count += e.count
                else:
                    b.entries[fp] = replace(e)
            elif fp not in b.entries:
                pruned.append(e)
            elif b.entries[fp].count < e.count:
                pruned.append(replace(e, count=e.count - b.entries[fp].count))
    pruned.sort(key=lambda e: (e.path, e.line, e.code))
    return b, pruned


def write_baseline(path: Path, baseline: Baseline) -> None:
    """Atomic write (a temp file beside it, then a rename)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(baseline.to_json())
        os.replace(tmp, path)
    except OSError as e:
        raise BaselineError(f"{path}: cannot write the baseline: {e.strerror}") from None


def describe(e: Entry) -> str:
    count = f" (x{e.count})" if e.count > 1 else ""
    return f"{e.path}: {e.code}{' ' + e.symbol if e.symbol else ''}: {e.message}{count}"
