from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule
from ._tests import list_entries, python_tests, split_entry, test_list_settings

_CFG = {"test-lists": {"files": ["tests/test_lists/*.yml"], "selector": "function-name", "test-files": ["tests/**/test_*.py"]}}
_TEST = "def test_prefill():\n    pass\n\n\nclass TestServer:\n    def test_stream(self):\n        pass\n"


class TestListEntryUnresolved(Rule):
    """A test-list entry that selects nothing: no such file or test, or a form the selector ignores.

    ## What it does
    Reads the YAML test lists the project's CI selects tests by (`tests:` entries of the form
    `path::[Class::]function[param]`; the lists and the selector's semantics come from the profile or the
    `test-lists` config table) and reports every entry that selects no test: the file does not exist, the file
    has no such test function (or class method), or the entry has a form the selector ignores. With the
    `function-name` selector (TensorRT Edge-LLM's `tests/conftest.py` compares only the part after the last
    `::` with each collected test's name) a bare file path selects nothing.

    ## Why it matters
    The entry looks like coverage in review, but CI runs nothing for it: a renamed or deleted test, or a file
    listed without `::test_name`, silently drops tests from the gate.

    ## Example
    ```yaml
    tests:
      - tests/python-unittests/test_direct_builder_checkpoint_contract.py   # selects nothing
      - tests/python-unittests/test_attention_plugin.py::test_prefil         # typo: no such test
    ```

    ## Fix
    Name the tests: `path::test_function` (one entry per test, or per parametrization), and correct or remove
    entries whose test no longer exists.
    """

    code = "TRT403"
    reads = frozenset({"files", "globs", "make_sources", "targets", "test_cases", "test_entries"})
    name = "test-list-entry-unresolved"
    family = "wiring"

    VALID = [
        {
            "files": {
                "tests/test_lists/l0.yml": "tests:\n  - tests/unit/test_attn.py::test_prefill\n  - tests/unit/test_attn.py::TestServer::test_stream[llm]\n",
                "tests/unit/test_attn.py": _TEST,
            },
            "config": _CFG,
        },
        {
            # pytest node ids: a bare file path selects every test in it
            "files": {
                "ci/list.yml": "tests:\n  - tests/unit/test_attn.py\n",
                "tests/unit/test_attn.py": _TEST,
            },
            "config": {"test-lists": {"files": ["ci/*.yml"], "selector": "nodeid"}},
        },
    ]
    INVALID = [
        {
            "files": {
                "tests/test_lists/l0.yml": (
                    "# L0\ntests:\n"
                    "  - tests/unit/test_attn.py\n"
                    "  - tests/unit/test_attn.py::test_prefil\n"
                    "  - tests/unit/test_gone.py::test_prefill\n"
                    "  - tests/unit/test_attn.py::TestClient::test_stream\n"
                ),
                "tests/unit/test_attn.py": _TEST,
            },
            "config": _CFG,
            "expect": [
                ("tests/test_lists/l0.yml", 3, "selects nothing: it is a bare file path"),
                ("tests/test_lists/l0.yml", 4, "no test 'test_prefil' in tests/unit/test_attn.py (closest: test_prefill)"),
                ("tests/test_lists/l0.yml", 5, "no such file"),
                ("tests/test_lists/l0.yml", 6, "no test 'TestClient::test_stream'"),
            ],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        cfg = test_list_settings(index)
        if cfg is None:
            return
        tests = python_tests(index, {**cfg, "test_files": ["**/*.py"]})
        function_name = cfg["selector"] == "function-name"
        case_names: dict[str, set] = {}  # path -> {(name, class), (name, None)} of its test cases
        for e in list_entries(index, cfg):
            path, cls, func, _ = split_entry(e.entry)
            exists = path in index.files or (index.root / path).exists()
            if not exists:
                yield self.diag(
                    e.span,
                    f"test-list entry '{e.entry}' selects nothing: no such file {path}",
                    symbol=e.entry,
                )
                continue
            if func is None:
                if function_name and path.endswith(".py"):
                    yield self.diag(
                        e.span,
                        f"test-list entry '{e.entry}' selects nothing: it is a bare file path, and this project's "
                        "test selector compares only the part after the last '::' with test names; "
                        f"list its tests as '{path}::test_name'",
                        symbol=e.entry,
                    )
                continue
            if not path.endswith(".py"):
                continue
            cases = tests.get(path, ())
            names_here = case_names.get(path)
            if names_here is None:
                names_here = case_names[path] = {(t.name, t.cls) for t in cases} | {(t.name, None) for t in cases}
            if (func, cls) in names_here:
                continue
            want = f"{cls}::{func}" if cls else func
            names = sorted({t.name for t in cases})
            import difflib

            close = difflib.get_close_matches(func, names, n=1, cutoff=0.75)
            hint = f" (closest: {close[0]})" if close else ""
            related = []
            for t in cases:
                if close and t.name == close[0]:
                    related.append(Related(t.span, f"{t.name} is defined here"))
                    break
            yield self.diag(
                e.span,
                f"test-list entry '{e.entry}' selects nothing: no test '{want}' in {path}{hint}",
                related=related,
                symbol=e.entry,
            )
