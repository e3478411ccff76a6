"""A size checked against a limit the caller passes (``Call.over_param``) and the caller's own parameters handed on as
plain names (``Call.arg_params``), from the C++ frontend (frontends/cpp/sizelimit.py), with the real libclang (the walk
that joins them from enqueue: TRT204's examples)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("clang.cindex")

from trtlint.base.facts import from_json, to_json  # noqa: E402
from trtlint.frontends import ExtractContext, SourceFile, cpp  # noqa: E402

SRC = r"""#include <cstddef>
#include <cstdlib>
#include <stdexcept>
void sink(size_t a, size_t b = 0);
void* carve(size_t n, size_t& left)
{
    if (n > left)
    {
        throw std::runtime_error("too small");
    }
    left -= n;
    return nullptr;
}
void* carveFlipped(size_t n, size_t left)
{
    if (left <= n)
        abort();
    return nullptr;
}
void* carveWritten(size_t n, size_t left)
{
    left += 16;
    if (n > left)
    {
        throw std::runtime_error("too small");
    }
    return nullptr;
}
void* carveHanded(size_t n, size_t left)
{
    sink(left);
    if (n > left)
    {
        throw std::runtime_error("too small");
    }
    return nullptr;
}
void* carveOther(size_t n, size_t left, size_t cap)
{
    if (n > cap || n > left)
    {
        throw std::runtime_error("too small");
    }
    if (n > 4096)
    {
        throw std::runtime_error("too big");
    }
    return nullptr;
}
int wrapper(void* ws, size_t size, size_t other)
{
    if (!ws)
    {
        size = 64;
        return static_cast<int>(size);
    }
    carve(4, size);
    carve(8, (size));
    carve(other, size);
    sink(size + 1, other);
    return 0;
}
int written(void* ws, size_t size)
{
    carve(4, size);
    size = 0;
    carve(8, size);
    return 0;
}
int handedOn(void* ws, size_t size, int n)
{
    carve(4, size);
    sink(size);
    carve(8, size);
    for (int i = 0; i < n; ++i)
    {
        carve(4, size);
    }
    return 0;
}
int afterLoop(void* ws, size_t size, int n)
{
    carve(4, size);
    carve(8, size);
    for (int i = 0; i < n; ++i)
    {
        sink(size);
    }
    return 0;
}
void* carveLoop(size_t n, size_t left)
{
    for (int i = 0; i < 4; ++i)
    {
        if (n > left)
        {
            throw std::runtime_error("too small");
        }
        sink(left);
    }
    return nullptr;
}
void* carveLoopPlain(size_t n, size_t& left)
{
    for (int i = 0; i < 4; ++i)
    {
        if (n > left)
        {
            throw std::runtime_error("too small");
        }
        left -= n;
    }
    return nullptr;
}
"""


@pytest.fixture(scope="module")
def fns(tmp_path_factory):
    root = tmp_path_factory.mktemp("sizelimit")
    p = root / "p" / "a.cpp"
    p.parent.mkdir()
    p.write_text(SRC, encoding="utf-8")
    ff = cpp.extract(SourceFile(path=p, rel="p/a.cpp", kind="cpp", digest="d"), ExtractContext(root=Path(root)))
    assert ff.problems == ()
    assert from_json(to_json(ff)) == ff
    return {fn.name: fn for fn in ff.functions}


def _fails(fn):
    return [(c.span.line, c.over_param) for c in fn.calls if c.kind == "throw" or c.callee == "abort"]


def test_a_size_over_a_parameter(fns):
    # `n > left` and `left <= n` on the untouched integer parameter (a reference too): its index; the write after the
    # test is the carve
    assert _fails(fns["carve"]) == [(9, 1)]
    assert _fails(fns["carveFlipped"]) == [(17, 1)]


def test_not_a_size_over_an_untouched_parameter(fns):
    # written or handed to a call before the test, a disjunction, a constant limit: nothing
    assert _fails(fns["carveWritten"]) == [(25, None)]
    assert _fails(fns["carveHanded"]) == [(34, None)]
    assert _fails(fns["carveOther"]) == [(42, None), (46, None)]


def test_parameters_handed_on(fns):
    # `size` written only in the branch that returns first: parameter 1 wherever it is passed as a plain name
    # (parentheses too); an expression of it is not
    got = [(c.span.line, c.callee, c.arg_params) for c in fns["wrapper"].calls if c.callee in ("carve", "sink")]
    assert got == [(57, "carve", (-1, 1)), (58, "carve", (-1, 1)), (59, "carve", (2, 1)), (60, "sink", ())]
    # (`other`, handed to carve before, may have been changed by it: sink's call does not have it)
    # written on the way (after the first carve too): no call has it as the caller's parameter
    assert [c.arg_params for c in fns["written"].calls if c.callee == "carve"] == [(), ()]


def test_parameters_handed_to_another_callee(fns):
    # handed to sink (a reference parameter may change it) before the second carve, or in a loop around a carve: not
    # the caller's parameter there; the carves' own earlier calls, and a hand-off after the last carve, are fine
    assert [c.arg_params for c in fns["handedOn"].calls if c.callee == "carve"] == [(-1, 1), (), ()]
    assert [c.arg_params for c in fns["afterLoop"].calls if c.callee == "carve"] == [(-1, 1), (-1, 1)]
    # a test in a loop whose body hands the parameter to a call after it: the next test may see another value
    assert _fails(fns["carveLoop"]) == [(97, None)]
    assert _fails(fns["carveLoopPlain"]) == [(109, 1)]  # (the write after the test in the loop is the carve)
