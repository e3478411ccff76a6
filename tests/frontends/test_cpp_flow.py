"""Control-flow / data-flow facts of the C++ frontend (trtlint/frontends/cpp/flow.py), with the real libclang."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("clang.cindex")

from trtlint.base.facts import from_json, to_json  # noqa: E402
from trtlint.frontends import ExtractContext, SourceFile, cpp  # noqa: E402

SRC = r"""#include <cuda_runtime.h>
#include <vector>
#include <stdexcept>
#include <cstdlib>
#define MY_CHECK(c) do { if (!(c)) { throw std::runtime_error("bad"); } } while (0)
#define CK(x) do { auto s_ = x; if (s_ != cudaSuccess) { const char* m = cudaGetErrorString(s_); throw std::runtime_error(m); } } while (0)
__global__ void k(float* x) {}
void launch(float* x, cudaStream_t stream = 0) { k<<<1, 1>>>(x); k<<<1, 1, 0, stream>>>(x); }
struct P { int a; };
int f(float* d, cudaStream_t stream, std::vector<float>& hv) noexcept
{
    float buf[4];
    P params;
    std::vector<int> v(3);
    cudaMemcpyAsync(d, buf, 16, cudaMemcpyHostToDevice, stream);
    cudaMemcpyAsync(d, &params, 4, cudaMemcpyHostToDevice);
    cudaMemcpyAsync(d, v.data(), 4, cudaMemcpyHostToDevice, 0);
    cudaMemcpyAsync(d, hv.data(), 4, cudaMemcpyHostToDevice, stream);
    (void) cudaMemsetAsync(d, 0, 4, stream);
    CK(cudaMemsetAsync(d, 0, 4, stream));
    launch(d);
    try {
        MY_CHECK(d != nullptr);
        v.at(3);
    } catch (std::exception const& e) {
        throw;
    }
    if (cudaGetLastError() != cudaSuccess) { cudaFree(d); return -1; }
    abort();
    return 0;
}
"""


@pytest.fixture(scope="module")
def facts(tmp_path_factory):
    root = tmp_path_factory.mktemp("flow")
    p = root / "p" / "a.cu"
    p.parent.mkdir()
    p.write_text(SRC, encoding="utf-8")
    ff = cpp.extract(SourceFile(path=p, rel="p/a.cu", kind="cuda", digest="d"), ExtractContext(root=Path(root)))
    assert ff.problems == ()
    assert from_json(to_json(ff)) == ff
    return {fn.name: fn for fn in ff.functions}


def _calls(fn, line):
    return [c for c in fn.calls if c.span.line == line]


def test_launch_stream_argument(facts):
    launches = [c for c in facts["launch"].calls if c.kind == "launch"]
    assert [c.stream_arg for c in launches] == ["", "stream"]


def test_stream_parameter_given_omitted_or_default(facts):
    f = facts["f"]
    assert [c.stream_arg for c in _calls(f, 15) if c.callee == "cudaMemcpyAsync"] == ["stream"]
    assert [c.stream_arg for c in _calls(f, 16) if c.callee == "cudaMemcpyAsync"] == [""]
    assert [c.stream_arg for c in _calls(f, 17) if c.callee == "cudaMemcpyAsync"] == ["0"]
    assert [c.stream_arg for c in _calls(f, 21) if c.callee == "launch"] == [""]  # project default `stream = 0`


def test_memcpy_sources(facts):
    f = facts["f"]
    src = {line: next(c.mem_src for c in _calls(f, line) if c.callee == "cudaMemcpyAsync") for line in (15, 16, 17, 18)}
    assert src == {15: ("", "stack:buf"), 16: ("", "stack:params"), 17: ("", "vector:v"), 18: ("", "vector:hv")}


def test_discarded_results(facts):
    f = facts["f"]
    disc = {(c.span.line, c.callee) for c in f.calls if c.discarded}
    assert (15, "cudaMemcpyAsync") in disc and (28, "cudaFree") in disc
    assert (19, "cudaMemsetAsync") not in disc  # (void) cast
    assert not any(line == 20 for line, _ in disc)  # checked by the macro; its cudaGetErrorString is used


def test_throws_and_try_nesting(facts):
    f = facts["f"]
    throws = [(c.span.line, c.args[0], c.in_try) for c in f.calls if c.kind == "throw"]
    assert throws == [(20, "std::runtime_error", False), (23, "std::runtime_error", True), (26, "(rethrow)", False)]
    assert [c.in_try for c in _calls(f, 24) if c.callee == "std::vector::at"] == [True]
    assert [c.in_try for c in _calls(f, 23) if c.kind == "macro"] == [True]


def test_error_path_guard(facts):
    f = facts["f"]
    (free,) = [c for c in _calls(f, 28) if c.callee == "cudaFree"]
    assert free.guard == "error-path:cudaGetLastError() != cudaSuccess"
    assert [c.guard for c in _calls(f, 29) if c.callee == "abort"] == [None]


def test_function_try_block_covers_the_body(tmp_path):
    p = tmp_path / "p" / "b.cpp"
    p.parent.mkdir()
    p.write_text(
        "#include <stdexcept>\nint g(int n) noexcept\ntry\n{\n    if (n < 0)\n    {\n        throw std::runtime_error(\"n\");\n"
        "    }\n    return n;\n}\ncatch (...)\n{\n    return -1;\n}\n",
        encoding="utf-8",
    )
    ff = cpp.extract(SourceFile(path=p, rel="p/b.cpp", kind="cpp", digest="d"), ExtractContext(root=tmp_path))
    (fn,) = [f for f in ff.functions if f.name == "g"]
    assert [(c.kind, c.span.line, c.in_try) for c in fn.calls if c.kind == "throw"] == [("throw", 7, True)]


AFTER_SWITCH = r"""#include <stdexcept>
#include <cstdlib>
namespace nvinfer1 { enum class DataType : int { kFLOAT, kHALF, kINT8, kBF16 }; }
using nvinfer1::DataType;
enum class Tactic : int { kNaive, kSmart };
void* scratch(int n);
bool gFast = false;
unsigned size_of(DataType t)
{
    switch (t)
    {
    case DataType::kFLOAT: return 4;
    case DataType::kHALF: { return 2; }
    }
    throw std::runtime_error("type");
}
int run_rest(DataType t)
{
    switch (t)
    {
    case DataType::kFLOAT: return 1;
    }
    scratch(1);
    return 0;
}
int tile(Tactic t)
{
    switch (t)
    {
    case Tactic::kNaive:
        for (int i = 0; i < 3; ++i) { if (gFast) break; }
        return 1;
    case Tactic::kSmart: return 2;
    }
    abort();
}
int tile_breaks(Tactic t)
{
    switch (t)
    {
    case Tactic::kNaive: if (gFast) { break; } return 1;
    case Tactic::kSmart: return 2;
    }
    abort();
}
int tile_part(Tactic t)
{
    switch (t)
    {
    case Tactic::kNaive: return 1;
    }
    abort();
}
int with_default(int t)
{
    switch (t)
    {
    case 0: return 1;
    default: return 0;
    }
    abort();
}
int with_default_breaks(int t)
{
    switch (t)
    {
    case 0: if (gFast) { break; } return 1;
    default: return 0;
    }
    abort();
}
"""


def test_code_after_a_switch_every_case_of_which_leaves_is_its_default(tmp_path):
    # after a switch with no default whose every case leaves the function, only the values no case names go on: the
    # code there is that switch's default (a data type: the branch for no accepted type, when it fails; every
    # enumerator named: a value none names); a break anywhere in a case (not a loop's) makes it reachable
    p = tmp_path / "p" / "s.cpp"
    p.parent.mkdir()
    p.write_text(AFTER_SWITCH, encoding="utf-8")
    ff = cpp.extract(SourceFile(path=p, rel="p/s.cpp", kind="cpp", digest="d"), ExtractContext(root=tmp_path))
    assert ff.problems == ()
    fns = {fn.name: fn for fn in ff.functions}

    def guards(name, what):
        return [c.guard for c in fns[name].calls if (c.kind == "throw" if what == "throw" else c.callee == what)]

    assert guards("size_of", "throw") == ["error-path:unsupported data type"]
    assert guards("run_rest", "scratch") == [None]  # the work for the types the switch does not name
    assert guards("tile", "abort") == ["error-path:a value no enumerator names"]
    assert guards("tile_breaks", "abort") == [None]
    assert guards("tile_part", "abort") == [None]  # kSmart goes on after the switch
    assert guards("with_default", "abort") == ["error-path:unreachable"]
    assert guards("with_default_breaks", "abort") == [None]
