"""bench/rule_mutations.py's entries still apply: each edit's old text occurs exactly once in its file (a rule or
frontend rewritten or moved leaves an entry that can no longer break anything; the benchmark would only say so
when it is run, minutes later)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import rule_mutations  # noqa: E402


@pytest.mark.parametrize("m", rule_mutations.MUTATIONS, ids=lambda m: f"{'/'.join(m.codes)}:{Path(m.path).name}")
def test_mutation_text_occurs_once(m):
    path = ROOT / m.path
    assert path.is_file(), f"{m.path} does not exist (moved?)"
    assert path.read_text(encoding="utf-8").count(m.old) == 1, f"{m.path}: the edit's text must occur exactly once"
