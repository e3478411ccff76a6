"""Issue 31: where a pointer argument comes from (``Call.arg_null``: ``p<j>`` / ``d<j>``) and the null tests of
pointer parameters around a call (``Call.null_args``), from the C++ frontend (frontends/cpp/nonnull.py), with the
real libclang (the walk that joins them with enqueue's workspace: tests/test_hotpath_guards.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("clang.cindex")

from trtlint.base.facts import from_json, to_json  # noqa: E402
from trtlint.frontends import ExtractContext, SourceFile, cpp  # noqa: E402

SRC = r"""#include <cuda_runtime.h>
#include <cstddef>
void sink(void* a, void* b = nullptr);
static void* advance(void* p, size_t n) { return static_cast<char*>(p) + n; }
static void* pick(void* p, void* q) { if (q) { return q; } return p; }
void carve(void* ws, void* other, size_t n)
{
    char* base = static_cast<char*>(ws);
    float* mean = reinterpret_cast<float*>(base + n);
    void* next = advance(ws, n);
    char* moved = base;
    moved += 64;
    sink(ws, other);
    sink(static_cast<float*>(ws) + 4, &base[n]);
    sink(mean, next);
    sink(moved, pick(ws, other));
    sink(n > 0 ? base : nullptr, base);
}
void advanced(void* ws, size_t n)
{
    ws = static_cast<char*>(ws) + n;
    sink(ws);
    if (!ws)
    {
        sink(nullptr);
    }
}
void replaced(void* ws, void* mine)
{
    ws = mine;
    sink(ws);
    if (!ws)
    {
        sink(nullptr);
    }
}
void tests(void* ws, int n, void* other)
{
    if (ws)
    {
        sink(other);
    }
    else
    {
        sink(nullptr);
    }
    if (n > 1 && ws == NULL)
    {
        sink(other);
    }
    if (0 == ws || n > 1)
    {
        sink(other);
    }
    if (!(ws != nullptr))
    {
        sink(other);
    }
    if (ws || n > 1)
    {
        sink(other);
    }
    else
    {
        sink(nullptr);
    }
    if (ws != nullptr)
    {
        return;
    }
    sink(other);
}
static float* take(char*& ws, size_t n) { float* p = reinterpret_cast<float*>(ws); ws += n; return p; }
static void reset(char*& ws) { ws = nullptr; }
void byref(void* workspace, size_t n)
{
    char* ws = static_cast<char*>(workspace);
    float* a = take(ws, n);
    sink(ws, a);
    char* other = static_cast<char*>(workspace);
    reset(other);
    sink(other);
}
template <typename T>
void dependent(T* out, void* workspace)
{
    T* mean = reinterpret_cast<T*>(workspace);
    sink(out, mean);
}
"""


@pytest.fixture(scope="module")
def fns(tmp_path_factory):
    root = tmp_path_factory.mktemp("nonnull")
    p = root / "p" / "a.cpp"
    p.parent.mkdir()
    p.write_text(SRC, encoding="utf-8")
    ff = cpp.extract(SourceFile(path=p, rel="p/a.cpp", kind="cpp", digest="d"), ExtractContext(root=Path(root)))
    assert ff.problems == ()
    assert from_json(to_json(ff)) == ff
    return {fn.name: fn for fn in ff.functions}


def _sinks(fn):
    return [(c.span.line, c.arg_null, c.null_args) for c in fn.calls if c.callee == "sink"]


def test_derived_pointers(fns):
    # ws passed as it came is p0; cast + offset, &base[n], a local carved from it, a helper advancing it, a local
    # advanced in place, a conditional of two derivations... derive from it (d0); `other`, a helper that may return
    # another pointer (pick), a conditional with a null arm: nothing known
    assert _sinks(fns["carve"]) == [
        (13, ("p0", "p1"), ()),
        (14, ("d0", "d0"), ()),
        (15, ("d0", "d0"), ()),
        (16, ("d0",), ()),
        (17, ("", "d0"), ()),
    ]


def test_a_parameter_advanced_in_place_stays_derived_and_one_replaced_does_not(fns):
    assert _sinks(fns["advanced"]) == [(22, ("d0",), ()), (25, ("null",), (0,))]
    # ws = mine: not what the caller passed; no null test of it is recorded
    assert _sinks(fns["replaced"]) == [(31, (), ()), (34, ("null",), ())]


def test_null_tests_of_a_parameter(fns):
    got = [(line, nulls) for line, _a, nulls in _sinks(fns["tests"])]
    assert got == [
        (41, ()),  # then of `if (ws)`
        (45, (0,)),  # its else
        (49, (0,)),  # a conjunct of && tested for null
        (53, ()),  # a disjunct of ||: the branch runs with ws set too
        (57, (0,)),  # !(ws != nullptr)
        (61, ()),
        (65, (0,)),  # the else of `ws || n > 1`
        (71, (0,)),  # after `if (ws != nullptr) return;`
    ]


def test_a_pointer_handed_to_a_reference_parameter(fns):
    # take(char*& ws, n) only advances it (and returns a pointer derived from it): ws and a stay derived; reset sets
    # it to null: other is not known
    assert _sinks(fns["byref"]) == [(79, ("d0", "d0"), ()), (82, (), ())]
    assert _sinks(fns["dependent"]) == [(88, ("p0", "d1"), ())]
