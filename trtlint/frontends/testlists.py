"""Test lists (YAML) and the tests that runners collect (pytest functions, googletest cases).

* ``extract`` (kind ``yaml``): a YAML document whose top level maps ``tests`` to a sequence; every string
  entry becomes a :class:`ListedTestEntry` with its exact line and columns (pyyaml's composer gives node
  marks). Other YAML files give no facts. Malformed YAML is TRT001 only when the file looks like a test list.
* :func:`pytest_cases` (called by the Python frontend for ``test_*.py``/``*_test.py``): ``def test_*`` at
  module level and in ``Test*`` classes, read with the standard library's ``ast`` (a test file needs nothing
  more, and ``ast`` is several times cheaper than libcst).
* :func:`gtest_cases`: ``TEST(Suite, Name)``/``TEST_F``/``TEST_P``/``TYPED_TEST`` at the start of a line in
  C++/CUDA text (comments and strings blanked first).
"""

from __future__ import annotations

import ast
import re
from typing import Callable, Optional

from trtlint.base.facts import DefinedTest, FileFacts, ListedTestEntry, ParseProblem, Span
from . import ExtractContext, SourceFile, read_text

VERSION = "1"
KIND_NAMES = ("yaml",)

_TESTS_KEY = re.compile(r"^tests\s*:", re.M)


def extract(src: SourceFile, ctx: ExtractContext) -> FileFacts:
    try:
        return _extract(src)
    except Exception as e:  # never raise: report instead
        return FileFacts(
            path=src.rel,
            kind=src.kind,
            digest=src.digest,
            problems=(ParseProblem(f"test-list frontend internal error: {type(e).__name__}: {e}", Span(src.rel, 1)),),
        )


def _extract(src: SourceFile) -> FileFacts:
    empty = FileFacts(path=src.rel, kind=src.kind, digest=src.digest)
    text, problem = read_text(src)
    if text is None:
        return FileFacts(path=src.rel, kind=src.kind, digest=src.digest, problems=(ParseProblem(problem or "unreadable", Span(src.rel, 1)),))
    if not _TESTS_KEY.search(text):
        return empty
    import yaml

    try:
        node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        col = mark.column + 1 if mark else 1
        msg = getattr(e, "problem", None) or str(e).splitlines()[0]
        return FileFacts(
            path=src.rel, kind=src.kind, digest=src.digest,
            problems=(ParseProblem(f"invalid YAML in a test list: {msg}", Span(src.rel, line, col)),),
        )
    if not isinstance(node, yaml.MappingNode):
        return empty
    entries = []
    for key, value in node.value:
        if not (isinstance(key, yaml.ScalarNode) and key.value == "tests"):
            continue
        if not isinstance(value, yaml.SequenceNode):
            continue
        for item in value.value:
            if isinstance(item, yaml.ScalarNode) and item.tag.endswith(":str") and item.value.strip():
                sm, em = item.start_mark, item.end_mark
                entries.append(
                    ListedTestEntry(item.value.strip(), Span(src.rel, sm.line + 1, sm.column + 1, em.line + 1, em.column + 1))
                )
    return FileFacts(path=src.rel, kind=src.kind, digest=src.digest, test_entries=tuple(entries))


def is_pytest_file(rel: str) -> bool:
    base = rel.rsplit("/", 1)[-1]
    return base.endswith(".py") and (base.startswith("test_") or base.endswith("_test.py"))


def pytest_cases(rel: str, text: str, tree_of: Optional[Callable[[], ast.AST]] = None) -> tuple[DefinedTest, ...]:
    """``test_*`` functions (module level, and methods of ``Test*`` classes); empty on a syntax error (the
    Python frontend reports that). ``tree_of``: returns the text's ``ast`` tree (parsed once by the caller) or
    raises what ``ast.parse`` raised."""
    try:
        tree = tree_of() if tree_of is not None else ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    out: list[DefinedTest] = []

    def fn_span(fn: ast.AST) -> Span:
        line = fn.lineno  # type: ignore[attr-defined]
        col = fn.col_offset + 1  # type: ignore[attr-defined]
        return Span(rel, line, col, line, col + len("def ") + len(fn.name) + (6 if isinstance(fn, ast.AsyncFunctionDef) else 0))  # type: ignore[attr-defined]

    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name.startswith("test"):
            out.append(DefinedTest(stmt.name, fn_span(stmt)))
        elif isinstance(stmt, ast.ClassDef) and stmt.name.startswith("Test"):
            for sub in stmt.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and sub.name.startswith("test"):
                    out.append(DefinedTest(sub.name, fn_span(sub), cls=stmt.name))
    return tuple(out)


_GTEST = re.compile(rb"^[ \t]*(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)[ \t]*\([ \t]*(\w+)[ \t]*,[ \t]*(\w+)[ \t]*\)", re.M)
_BLANK = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"', re.S)


# every case macro's name ends in TEST, TEST_F or TEST_P followed by "(": blanking comments and strings only
# removes text, so a file without this has no case (most C++ files name TEST somewhere, few define a case)
_GTEST_ANY = re.compile(rb"TEST(?:_[FP])?[ \t]*\(")


_TO_SPACES = bytes(10 if i == 10 else 32 for i in range(256))  # every byte but a newline becomes a space


def gtest_cases(rel: str, data: bytes) -> tuple[DefinedTest, ...]:
    if b"TEST" not in data or _GTEST_ANY.search(data) is None:
        return ()
    clean = _BLANK.sub(lambda m: m.group(0).translate(_TO_SPACES), data)
    out = []
    for m in _GTEST.finditer(clean):
        line = clean.count(b"\n", 0, m.start(1)) + 1
        col = m.start(1) - (clean.rfind(b"\n", 0, m.start(1)) + 1) + 1
        out.append(DefinedTest(m.group(3).decode("ascii"), Span(rel, line, col, line, col + len(m.group(1))), cls=m.group(2).decode("ascii")))
    return tuple(out)
