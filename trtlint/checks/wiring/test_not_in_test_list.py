from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Severity
from ..base import Rule
from ._tests import list_entries, list_files, nodeid_selects, python_tests, selected_names, test_list_settings

_CFG = {"test-lists": {"files": ["tests/test_lists/*.yml"], "selector": "function-name", "test-files": ["tests/**/test_*.py"]}}


class TestNotInTestList(Rule):
    """A test that the project's CI selects by list, but no list names: it never runs in CI.

    ## What it does
    For projects whose CI keeps only the tests named in YAML test lists (the profile's or the `test-lists`
    config table's `files`), finds every `test_*` function (and `Test*` class method) in the test files
    (`test-files`) that no list entry selects, with the project's selector semantics (`function-name`:
    the part after the last `::` compared with the test's name, in any module; `nodeid`: pytest node ids,
    where a path selects every test below it).

    ## Why it matters
    A new test passes locally and in review, but CI filters it out: it never gates a merge. In TensorRT
    Edge-LLM, `tests/conftest.py` drops every collected test that the chosen list does not name.

    ## Example
    ```python
    # tests/python-unittests/test_mamba_plugin.py
    def test_decode_chunked():   # no tests/test_lists/*.yml entry names it
        ...
    ```

    ## Fix
    Add `path::test_name` to the list of the CI stage that should run it (or delete the test).
    """

    code = "TRT402"
    reads = frozenset({"files", "globs", "make_sources", "targets", "test_cases", "test_entries"})
    name = "test-not-in-test-list"
    family = "wiring"
    severity = Severity.WARNING

    VALID = [
        {
            "files": {
                "tests/test_lists/l0.yml": "tests:\n  - tests/unit/test_a.py::test_one\n  - tests/unit/test_a.py::TestB::test_two[x]\n",
                "tests/unit/test_a.py": "def test_one():\n    pass\n\n\nclass TestB:\n    def test_two(self):\n        pass\n\n\ndef helper():\n    pass\n",
            },
            "config": _CFG,
        },
        {
            # without test lists (no profile setting, no config) the rule has nothing to say
            "files": {"tests/unit/test_a.py": "def test_one():\n    pass\n"},
        },
    ]
    INVALID = [
        {
            "files": {
                "tests/test_lists/l0.yml": "tests:\n  - tests/unit/test_a.py::test_one\n",
                "tests/unit/test_a.py": "def test_one():\n    pass\n\n\nclass TestB:\n    def test_two(self):\n        pass\n",
                "tests/unit/test_c.py": "async def test_three():\n    pass\n",
            },
            "config": _CFG,
            "expect": [
                ("tests/unit/test_a.py", 6, "TestB::test_two is not named by any test list"),
                ("tests/unit/test_c.py", 1, "test_three is not named by any test list"),
            ],
        },
        {
            "files": {
                "ci/l0.yml": "tests:\n  - tests/unit/test_a.py::test_one\n",
                "tests/unit/test_a.py": "def test_one():\n    pass\n\n\ndef test_two():\n    pass\n",
            },
            "config": {"test-lists": {"files": ["ci/*.yml"], "selector": "nodeid", "test-files": ["tests/**/test_*.py"]}},
            "expect": [("tests/unit/test_a.py", 5, "test_two is not named by any test list")],
        },
        {
            # a file none of whose tests is listed: one finding for the file
            "files": {
                "tests/test_lists/l0.yml": "tests:\n  - tests/unit/test_a.py::test_one\n",
                "tests/unit/test_a.py": "def test_one():\n    pass\n",
                "tests/unit/test_q.py": "def test_x():\n    pass\n\n\ndef test_y():\n    pass\n",
            },
            "config": _CFG,
            "expect": [("tests/unit/test_q.py", 1, "none of the 2 tests in tests/unit/test_q.py is named by any test list")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        cfg = test_list_settings(index)
        if cfg is None:
            return
        entries = list_entries(index, cfg)
        lists = list_files(index, cfg)
        if not lists:
            return  # the project has no list files (yet): nothing selects, nothing to compare with
        where = ", ".join(cfg["files"])
        names = selected_names(entries) if cfg["selector"] == "function-name" else None
        for path, cases in python_tests(index, cfg).items():
            missing = []
            for t in cases:
                if names is not None:
                    if t.name in names:
                        continue
                elif any(nodeid_selects(e.entry, path, t) for e in entries):
                    continue
                missing.append(t)
            if len(missing) == len(cases) and len(cases) > 1:
                # a whole file no list knows: one finding, not one per test
                t = missing[0]
                yield self.diag(
                    t.span,
                    f"none of the {len(cases)} tests in {path} is named by any test list ({where}): CI selects "
                    f"tests by list, so this file never runs there; add its tests ('{path}::{t.name}', ...) to a list",
                    symbol=path,
                )
                continue
            for t in missing:
                shown = f"{t.cls}::{t.name}" if t.cls else t.name
                yield self.diag(
                    t.span,
                    f"{shown} is not named by any test list ({where}): CI selects tests by list, so it never runs "
                    f"there; add '{path}::{shown}' to a list",
                    symbol=f"{path}::{shown}",
                )
