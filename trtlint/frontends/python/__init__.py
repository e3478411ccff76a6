"""Python frontend: ONNX node emissions, direct-route builder calls, creator lookups, plugin API uses,
custom-op stubs, pytest cases, Torch-TensorRT converters and TensorRT Python plugins.

The cheap steps live here and need no libcst: a text pre-filter (:func:`.fast.prefilter`), one stdlib ``ast``
parse shared by the custom-op stubs (:mod:`.stubs`), the classes declaring a TensorRT API name (:mod:`.members`),
the receivers of the name-matched TensorRT API uses (:mod:`.receivers`), the pytest cases and the libcst skip
test (:func:`.fast.libcst_facts_possible`). Only a file that test lets through goes on to the libcst extractors
(:mod:`.cst`, with :mod:`.values`, :mod:`.onnx_emit` and :mod:`.torchtrt`), which are imported then: a worker
process that meets no such file never imports libcst (~0.3 s). :mod:`.names` holds the names both sides
share. The analysed code is never imported or executed.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Optional, Sequence

from trtlint.base.facts import FileFacts, ParseProblem, Span
from .. import ExtractContext, SourceFile, empty_facts, need, read_text, testlists
from . import fast

VERSION = "15"
KIND_NAMES = ("python",)


def might_have_facts(text: str, route_names: Sequence[str] = ExtractContext.route_call_names) -> bool:
    """The cheap text test run before parsing (:func:`.fast.prefilter`)."""
    return fast.prefilter(tuple(route_names)).search(text) is not None


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


DEEP_MESSAGE = "syntax error: expression nesting too deep to parse"


def too_deep(e: BaseException) -> bool:
    """Whether CPython's parser gave up on a file for its nesting (``ast.parse`` raised RecursionError, MemoryError
    when its C stack guard stops it, or "too many nested parentheses" past 200 levels). libcst's native parser
    is not guarded so: on such a file it overflows its stack (a segfault: 3,000 nested parentheses) or takes
    minutes and gigabytes (a 3.8 MB one-line sum), so it is never given one."""
    if isinstance(e, (RecursionError, MemoryError)):
        return True
    return isinstance(e, SyntaxError) and "too many nested parentheses" in str(getattr(e, "msg", ""))


def extract(src: SourceFile, ctx: ExtractContext) -> FileFacts:
    shared: dict = {}  # "text", "tree": what _extract read and parsed, reused for the pytest cases
    try:
        ff = _extract(src, ctx, shared)
    except Exception as e:  # never raise: report instead
        msg = f"python frontend internal error: {type(e).__name__}: {e}"
        return empty_facts(src, (ParseProblem(msg, Span(src.rel, 1)),), kind="python")
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
        return empty_facts(src, (ParseProblem(problem or "cannot read file", Span(src.rel, 1)),), kind="python")
    route_names = tuple(ctx.route_call_names)
    from . import markedpaths, members
    from . import stubs as stub_facts

    tree = _Tree(text)
    if shared is not None:
        shared["tree"] = tree
    # custom-op stubs, translation tables and signatures (ast)
    stubs = stub_facts.extract(text, src.rel, tree_of=tree.get)
    # classes declaring a member named like a TensorRT API of the deprecation pack (ast; TRT610)
    stubs.update(members.extract(text, src.rel, tree_of=tree.get))
    # a package's names imported from its modules (``from .builder import Builder``: TRT610 follows pkg.Builder)
    stubs.update(members.reexports(text, src.rel, tree_of=tree.get))
    # strings naming a path whose name marks it deprecated (the module builds or tests that code: TRT207, TRT610)
    stubs.update(markedpaths.extract(text, tree_of=tree.get))
    if not might_have_facts(text, route_names):
        return dataclasses.replace(empty_facts(src, kind="python"), **stubs)
    try:
        parsed = tree.get()
    except Exception as e:
        parsed = None  # the libcst parse below reports the syntax error
        if too_deep(e):  # libcst would crash or take minutes on it: CPython cannot parse it either
            line = getattr(e, "lineno", None) if isinstance(e, SyntaxError) else None
            problem = ParseProblem(DEEP_MESSAGE, Span(src.rel, line or 1))
            return dataclasses.replace(empty_facts(src, (problem,), kind="python"), **stubs)
    if parsed is not None and not fast.libcst_facts_possible(parsed, text, route_names, src.rel):
        # nothing the libcst extractors look for: their facts would all be empty
        return dataclasses.replace(empty_facts(src, kind="python"), **stubs)
    need("libcst")  # in a pool worker: hands the file to a worker that has libcst already, if one has
    from . import cst  # libcst: only for a file that may hold its facts

    ff = cst.extract_parsed(src, ctx, text, parsed, route_names, stubs)
    if ff.trt_api_uses and parsed is not None:
        ff = _with_receivers(ff, parsed, text, src.rel)
        ff = _with_caller_guards(ff, parsed, text)
    return ff


def _with_caller_guards(ff: FileFacts, tree, text: str) -> FileFacts:
    """The TensorRT API uses in a function whose every reference in the module is version-guarded, guarded too
    (:mod:`.guards`: ``if trt.__version__ < "10": return self._count_pre_10()``)."""
    if all(u.guarded for u in ff.trt_api_uses):
        return ff
    from . import guards

    try:
        ranges = guards.guarded_ranges(tree, text)
    except RecursionError:
        return ff
    if not ranges:
        return ff
    uses = tuple(
        dataclasses.replace(u, guarded=True)
        if not u.guarded and any(a <= u.span.line <= b for a, b in ranges)
        else u
        for u in ff.trt_api_uses
    )
    return dataclasses.replace(ff, trt_api_uses=uses)


def _with_receivers(ff: FileFacts, tree, text: str, rel: str) -> FileFacts:
    """The TensorRT API uses matched by name, with the class the code gives each one's receiver (:mod:`.receivers`,
    read from the whole file's ``ast`` tree)."""
    from . import receivers

    try:
        known = receivers.receivers(tree, text, rel, {u.name for u in ff.trt_api_uses})
    except RecursionError:
        return ff
    if not known:
        return ff
    uses = tuple(
        dataclasses.replace(u, receiver=known[(u.span.end_line, u.span.end_col)])
        if (u.span.end_line, u.span.end_col) in known
        else u
        for u in ff.trt_api_uses
    )
    return dataclasses.replace(ff, trt_api_uses=uses)
