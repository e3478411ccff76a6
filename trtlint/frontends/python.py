"""Python frontend: ONNX node emissions, direct-route builder calls, creator lookups, plugin API uses,
custom-op stubs, pytest cases, Torch-TensorRT converters and TensorRT Python plugins.

The cheap steps live here and need no libcst: a text pre-filter, one stdlib ``ast`` parse shared by the
custom-op stubs (python_stubs), the pytest cases and the libcst skip test (python_fast.libcst_facts_possible).
Only a file that test lets through goes on to the libcst extractors (python_cst, python_torchtrt), which are
imported then: a worker process that meets no such file never imports libcst (~0.3 s). The analysed code is
never imported or executed.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from typing import Optional, Sequence

from ..facts import FileFacts, ParseProblem, Span
from . import ExtractContext, SourceFile, need, read_text, testlists
from . import python_fast as _fast
from .python_names import prefilter_keywords

VERSION = "3"
KIND_NAMES = ("python",)

_DEFAULT_ROUTE_CALLS = ("operation",)
_DEFAULT_ROUTE_RESERVED = ("output_count",)

# --------------------------------------------------------------------------------------------------------
# Pre-filter
# --------------------------------------------------------------------------------------------------------

_BASE_KEYWORDS = (
    r"Opset",
    r"\.op\s*\(",
    r"make_node",
    r"get_creator",
    r"get_plugin_creator",
    r"PluginField",
    r"add_plugin",
    r"create_plugin",
    r"get_plugin_registry",
    r"IPluginCreator",
    r"plugin_version",
    r"\.register\s*\(",
)
_PREFILTER_CACHE: dict[tuple[str, ...], "_fast.FastSearch"] = {}


def _prefilter(route_names: tuple[str, ...]) -> "_fast.FastSearch":
    """The keywords as one test: ``.search(text)`` is None when none of them matches (see python_fast)."""
    pat = _PREFILTER_CACHE.get(route_names)
    if pat is None:
        parts = list(_BASE_KEYWORDS) + list(prefilter_keywords())
        if route_names:
            parts.append(r"\b(?:" + "|".join(re.escape(n) for n in route_names) + r")\s*\(")
        pat = _fast.FastSearch(parts)
        _PREFILTER_CACHE[route_names] = pat
    return pat


def might_have_facts(text: str, route_names: Sequence[str] = _DEFAULT_ROUTE_CALLS) -> bool:
    """The cheap text test run before parsing."""
    return _prefilter(tuple(route_names)).search(text) is not None


def _empty(src: SourceFile, problems: tuple = ()) -> FileFacts:
    return FileFacts(path=src.rel, kind=src.kind or "python", digest=src.digest, problems=problems)


class _Tree:
    """The file's stdlib ``ast`` tree, parsed at most once and shared by the custom-op stubs, the pytest cases,
    the libcst skip test and ``_reduce`` (each used to parse the text itself). ``get`` raises what
    ``ast.parse`` raised."""

    __slots__ = ("text", "tree", "exc", "done")

    def __init__(self, text: str) -> None:
        self.text = text
        self.tree = None
        self.exc: Optional[Exception] = None
        self.done = False

    def get(self):
        if not self.done:
            self.done = True
            try:
                self.tree = ast.parse(self.text)
            except Exception as e:
                self.exc = e
        if self.exc is not None:
            raise self.exc
        return self.tree


def extract(src: SourceFile, ctx: ExtractContext) -> FileFacts:
    shared: dict = {}  # "text", "tree": what _extract read and parsed, reused for the pytest cases
    try:
        ff = _extract(src, ctx, shared)
    except Exception as e:  # never raise: report instead
        return _empty(src, (ParseProblem(f"python frontend internal error: {type(e).__name__}: {e}", Span(src.rel, 1)),))
    if testlists.is_pytest_file(src.rel):  # the tests a runner collects (TRT402/TRT403)
        if "text" in shared:
            text = shared["text"]
        else:
            text, _ = read_text(src)
        if text is not None:
            tree = shared.get("tree")
            ff = dataclasses.replace(
                ff, test_cases=testlists.pytest_cases(src.rel, text, tree_of=tree.get if tree is not None else None)
            )
    return ff


def _extract(src: SourceFile, ctx: ExtractContext, shared: Optional[dict] = None) -> FileFacts:
    text, problem = read_text(src)
    if shared is not None:
        shared["text"] = text
    if text is None:
        return _empty(src, (ParseProblem(problem or "cannot read file", Span(src.rel, 1)),))
    route_names = tuple(getattr(ctx, "route_call_names", _DEFAULT_ROUTE_CALLS))
    from . import python_stubs

    tree = _Tree(text)
    if shared is not None:
        shared["tree"] = tree
    # custom-op stubs, translation tables and signatures (ast)
    stubs = python_stubs.extract(text, src.rel, tree_of=tree.get)
    if not might_have_facts(text, route_names):
        return dataclasses.replace(_empty(src), **stubs) if stubs else _empty(src)
    try:
        parsed = tree.get()
    except Exception:
        parsed = None  # the libcst parse below reports the syntax error
    if parsed is not None and not _fast.libcst_facts_possible(parsed, text, route_names, src.rel):
        # nothing the libcst extractors look for: their facts would all be empty
        return dataclasses.replace(_empty(src), **stubs) if stubs else _empty(src)
    need("libcst")  # in a pool worker: hands the file to a worker that has libcst already, if one has
    from . import python_cst  # libcst: only for a file that may hold its facts

    return python_cst.extract_parsed(src, ctx, text, parsed, route_names, stubs)
