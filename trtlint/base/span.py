"""A source range (:class:`Span`): what a fact and a finding point at; and the version of the fact vocabulary.

Their own module so that reading findings (the run memo's warm path, the reporters) and naming the cache's
folder do not import the whole fact vocabulary (:mod:`trtlint.base.facts`, ~50 dataclasses, which re-exports
both)."""

from __future__ import annotations

from dataclasses import dataclass

FACTS_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Span:
    path: str
    line: int
    col: int = 1
    end_line: int = 0
    end_col: int = 0

    def __post_init__(self) -> None:
        if self.end_line < self.line:
            object.__setattr__(self, "end_line", self.line)
        if self.end_line == self.line and self.end_col < self.col:
            object.__setattr__(self, "end_col", self.col)
