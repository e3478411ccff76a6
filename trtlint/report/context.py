"""What every reporter reads besides the diagnostics: the run's :class:`ReportContext`, and
:func:`is_opaque` for locations that are logical only."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:  # pragma: no cover
    from ..diagnostics import Diagnostic


@dataclass
class ReportContext:
    root: Path  # project root; spans are relative to it
    rules: list = field(default_factory=list)  # Rule classes that were enabled (for the SARIF rules array)
    files_checked: int = 0
    elapsed: float = 0.0
    tool_version: str = "0.1.0"
    color: bool = False  # text: ANSI color or not
    show_source: bool = True  # text: code frames
    problems_summary: bool = True
    # what the run was: the profile and how it was chosen ("detected", "configured", "from --profile"), how
    # the root was found, the paths given (project-relative; None: the whole project) and how many project
    # files they select
    profile: str = ""
    profile_source: str = ""
    root_reason: str = ""
    paths: Optional[list] = None
    files_selected: Optional[int] = None

    def project(self) -> dict:
        """The run's project, as the JSON report and SARIF run properties give it."""
        return {
            "root": str(Path(self.root).resolve()),
            "root_reason": self.root_reason,
            "profile": self.profile,
            "profile_source": self.profile_source,
            "paths": self.paths,
            "files_selected": self.files_selected,
        }


def is_opaque(d: "Diagnostic") -> bool:
    """True when a diagnostic's location is logical only (e.g. a node in a binary ONNX model): its line/column
    carry no meaning, so reporters show ``path [graph/node]`` and no region or code frame."""
    return bool(d.logical) and d.span.line <= 1 and d.span.end_line <= 1 and d.span.col <= 1
