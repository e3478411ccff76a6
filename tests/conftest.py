"""Session setup shared by every test.

A ``.trtlint_cache/`` inside a fixture (left by running ``trtlint check tests/fixtures/<tree>`` by hand, as the
README's examples do) would be copied into the tests' scratch projects with the fixture and change what they
measure (a warm cache where a test expects a cold one). It is a generated, git-ignored folder: removed before the
session, with a line saying so."""

from __future__ import annotations

import shutil
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"


def pytest_sessionstart(session):
    stale = sorted(p for p in FIXTURES.rglob(".trtlint_cache") if p.is_dir())
    for p in stale:
        shutil.rmtree(p, ignore_errors=True)
    if stale:
        print(f"tests: removed {len(stale)} stale .trtlint_cache folder(s) under tests/fixtures "
              f"(left by running trtlint on a fixture): {', '.join(str(p.relative_to(FIXTURES)) for p in stale)}")
