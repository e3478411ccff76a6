"""Diagnostics: the only input of reporters."""

from __future__ import annotations

import enum
import hashlib
import re
from dataclasses import dataclass
from typing import Optional

from trtlint.base import methodcache
from trtlint.base.span import Span


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]


_METHODS = methodcache.begin(__file__)  # the dataclasses' methods compiled once (until end())


@dataclass(frozen=True)
class Related:
    span: Span
    message: str


@dataclass(frozen=True)
class Edit:
    span: Span  # the range replaced
    text: str
    expect: str = ""  # when set: the text the range must hold, else the fix is refused (guards stale extents)


@dataclass(frozen=True)
class Fix:
    message: str
    edits: tuple[Edit, ...]
    applicability: str = "unsafe"  # "safe" | "unsafe" | "display-only"


def also_note(code: str, name: str, message: str) -> str:
    """The note a finding carries for another rule's finding on the same call that it took over (the check stage's
    one-finding-per-call merge): ``also TRT304 unchecked-cuda-status: ...``."""
    return f"also {code} {name}: {message}"


_ALSO = re.compile(r"also (TRT\d{3}) ")


@dataclass(frozen=True)
class Diagnostic:
    code: str  # "TRT101"
    name: str  # "plugin-name-mismatch"
    severity: Severity
    message: str
    span: Span
    related: tuple[Related, ...] = ()
    fix: Optional[Fix] = None
    symbol: str = ""  # the symbol involved (plugin, creator, field, function): part of the fingerprint
    logical: Optional[str] = None  # a logical location (e.g. ONNX graph/node), when lines mean nothing
    notes: tuple[str, ...] = ()
    snippet: str = ""  # the normalised source text at the finding (set by the engine; see baseline.py)

    def __post_init__(self) -> None:
        # one related location once: a header's registration seen by two units that include it is one place
        if len(self.related) > 1 and len(set(self.related)) != len(self.related):
            object.__setattr__(self, "related", tuple(dict.fromkeys(self.related)))

    def also_codes(self) -> list[str]:
        """The codes of the findings this one took over on the same call (:func:`also_note`)."""
        return [m.group(1) for n in self.notes for m in [_ALSO.match(n)] if m]

    @property
    def fingerprint(self) -> str:
        """A stable, line-independent fingerprint: rule, path, the symbol involved and the normalised source
        snippet at the finding (never the line number, so unrelated edits that shift lines keep it). Without
        a snippet (a diagnostic made outside a run) or without a symbol, the normalised message (digits
        dropped) stands in for what is missing."""
        msg = re.sub(r"\d+", "#", self.message)
        msg = re.sub(r"\s+", " ", msg).strip()
        if self.snippet and self.symbol:
            key = f"{self.code}\0{self.span.path}\0{self.symbol}\0{self.snippet}"
        elif self.snippet:
            key = f"{self.code}\0{self.span.path}\0\0{self.snippet}\0{msg}"
        else:
            key = f"{self.code}\0{self.span.path}\0{self.symbol}\0{msg}"
        return hashlib.sha256(key.encode()).hexdigest()[:32]

    def sort_key(self) -> tuple:
        return (self.span.path, self.span.line, self.span.col, self.code, self.message)

    def to_dict(self) -> dict:
        def span(s: Span) -> dict:
            return {
                "path": s.path,
                "line": s.line,
                "column": s.col,
                "end_line": s.end_line,
                "end_column": s.end_col,
            }

        d = {
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "message": self.message,
            "location": span(self.span),
            "related": [{"location": span(r.span), "message": r.message} for r in self.related],
            "symbol": self.symbol,
            "fingerprint": self.fingerprint,
            "fix": None,
        }
        if self.logical:
            d["logical_location"] = self.logical
        if self.notes:
            d["notes"] = list(self.notes)
        if self.fix:
            d["fix"] = {
                "message": self.fix.message,
                "applicability": self.fix.applicability,
                "edits": [{"location": span(e.span), "text": e.text} for e in self.fix.edits],
            }
        return d


methodcache.end(_METHODS)
