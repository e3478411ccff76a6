"""GPU-only bodies blanked before a CUDA-mode parse (trtlint/frontends/cpp/device.py): what the token scan
blanks and what it leaves, and that the facts are the same as without blanking (real libclang)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trtlint.frontends.cpp.device import blank_device_bodies


def _blanked_names(text: str) -> list[str]:
    """The names of the functions whose bodies were blanked (the word before the parameter list)."""
    out, opened = blank_device_bodies(text)
    assert len(out.encode()) == len(text.encode())
    assert out.count("\n") == text.count("\n")
    names = []
    for at in opened:
        head = text[:at].rstrip()
        paren = head.rfind("(", 0, head.rfind(")"))
        while paren > 0 and head.count("(", paren) != head.count(")", paren):
            paren = head.rfind("(", 0, paren)
        names.append(head[:paren].split()[-1])
    return names


def test_blanks_gpu_only_definitions():
    text = (
        "template <typename T, int N = 4>\n"
        "__global__ void __launch_bounds__(256) kern(T* x, int n = 3) {\n"
        "  int i = threadIdx.x; // }\n"
        "  x[i] = '}'; char const* s = \"{\";\n"
        "}\n"
        "__device__ inline float twice(float a) { return a * 2; }\n"
        "struct S { __device__ void m() const { go(); } };\n"
    )
    assert _blanked_names(text) == ["kern", "twice", "m"]
    out, _ = blank_device_bodies(text)
    assert "threadIdx" not in out and "return a * 2" not in out and "go()" not in out
    assert out.count("{") == text.count("{") - 1  # the bodies' own braces stay; the "{" literal in one went


@pytest.mark.parametrize(
    "text",
    [
        "__host__ __device__ int both() { return 1; }\n",  # host code too: walked
        "void host() { auto l = [] __device__ (int i) { return i; }; }\n",  # a lambda in host code
        "__device__ constexpr int c() { return 2; }\n",  # usable in host constant expressions
        "__device__ auto deduced() { return 2; }\n",  # the body decides the return type
        "__device__ auto trailing() -> int { return 2; }\n",
        "#define DEV __device__\nDEV int via_macro() { return 1; }\n",  # not named literally
        "__device__ int table[] = { 1, 2 };\n",  # a variable
        "struct D { __device__ D() : x(0) { init(); } int x; };\n",  # an initializer list
        "__device__ void inc() {\n#include \"body.inc\"\n}\n",  # an #include in the body
        "__device__ void odd() {\n#if A\n  if (a) {\n#else\n  if (b) {\n#endif\n  }\n}\n",  # branches change depth
        "__device__ void sep() { int n = 1'000; }\n",  # a digit separator: beyond the scan
        "__device__ void raw() { auto s = R\"(})\"; }\n",  # a raw string: beyond the scan
        "// __device__ void commented() { x(); }\nvoid h() { y(); }\n",
    ],
)
def test_leaves_what_it_cannot_prove(text):
    assert blank_device_bodies(text) == (text, [])


def test_conditionals_that_keep_the_depth_are_kept_and_pragmas_go():
    text = (
        "__device__ void k(int* p) {\n"
        "#pragma unroll\n"
        "  for (int i = 0; i < 4; ++i) {\n"
        "#if __CUDA_ARCH__ >= 800\n"
        "    p[i] = 1;\n"
        "#else\n"
        "    p[i] = 2;\n"
        "#endif\n"
        "  }\n"
        "#define LATER 1\n"
        "}\n"
        "int after = LATER;\n"
    )
    out, opened = blank_device_bodies(text)
    assert len(opened) == 1
    lines = out.split("\n")
    assert lines[1].strip() == ""  # '#pragma unroll' would be left without its loop
    assert lines[3] == "#if __CUDA_ARCH__ >= 800" and lines[5] == "#else" and lines[7] == "#endif"
    assert lines[9] == "#define LATER 1"  # a macro defined in a body is seen by the code after it
    assert lines[11] == "int after = LATER;"


def test_multibyte_text_keeps_byte_offsets():
    text = "__device__ void k() { /* café × 2 */ }\nvoid h() { f(); }\n"
    out, opened = blank_device_bodies(text)
    assert opened and len(out.encode()) == len(text.encode())
    assert out.encode().index(b"void h()") == text.encode().index(b"void h()")


# -- with libclang: the facts do not change ---------------------------------------------------------------

pytest.importorskip("clang.cindex")

from trtlint.base.facts import to_json  # noqa: E402
from trtlint.frontends import ExtractContext, SourceFile  # noqa: E402
from trtlint.frontends import cpp  # noqa: E402
from trtlint.frontends.cpp import unit as cpp_unit  # noqa: E402

_KERNELS_H = """#pragma once
#include <cstdio>
#define KCHECK(x) do { if (!(x)) printf("bad\\n"); } while (0)
template <typename T, int N>
__global__ void scaleKernel(T* x, T s) {
  // « unicode in a comment » keeps the byte offsets
  KCHECK(x != nullptr);
#pragma unroll
  for (int i = 0; i < N; ++i) { x[threadIdx.x * N + i] *= s; }
}
__device__ inline float helper(float a) { return a * 2.0f; }
"""

_UNIT = """#include "kernels.h"
#include <cuda_runtime.h>
#define CHECK_CUDA(e) do { cudaError_t s_ = (e); if (s_ != cudaSuccess) throw 1; } while (0)
template __global__ void scaleKernel<float, 4>(float*, float);
__global__ void other(float* x) { x[0] = helper(x[0]); KCHECK(x); }
void launch(float* x, cudaStream_t stream) {
  scaleKernel<float, 4><<<1, 32, 0, stream>>>(x, 2.0f);
  other<<<1, 1, 0, stream>>>(x);
  CHECK_CUDA(cudaMemsetAsync(x, 0, 16, stream));
  void* p = nullptr;
  CHECK_CUDA(cudaMalloc(&p, 16));
}
"""


def _both(tmp_path: Path, unit: str, headers: dict[str, str]):
    for rel, text in {**headers, "kern.cu": unit}.items():
        (tmp_path / rel).write_text(text, encoding="utf-8")
    src = SourceFile(path=tmp_path / "kern.cu", rel="kern.cu", kind="cuda", digest="d")
    ctx = ExtractContext(root=tmp_path)
    before = cpp.stats()
    on = cpp_unit._extract(src, ctx, "cuda")
    mid = cpp.stats()
    off = cpp_unit._extract(src, ctx, "cuda", blank=False)
    return on, off, before, mid


def test_facts_are_the_same_blanked_or_not(tmp_path):
    on, off, before, mid = _both(tmp_path, _UNIT, {"kernels.h": _KERNELS_H})
    assert mid["blanked_bodies"] - before["blanked_bodies"] == 3  # scaleKernel, helper, other
    assert mid["blank_retries"] == before["blank_retries"]
    assert to_json(on) == to_json(off)
    launch = next(f for f in on.functions if f.name == "launch")
    callees = [c.callee for c in launch.calls]
    assert "cudaMalloc" in callees and "cudaMemsetAsync" in callees
    kern = next(f for f in on.functions if f.name == "other")
    assert kern.calls == ()  # a GPU-only body: neither walked nor searched for macro calls
    assert not on.problems


def test_a_body_libclang_sees_as_host_code_is_parsed_again_unblanked(tmp_path):
    unit = "#define __device__\n" + "__device__ void notGpu(void** p) { cudaMalloc(p, 16); }\n"
    on, off, before, mid = _both(tmp_path, "#include <cuda_runtime.h>\n" + unit, {})
    assert mid["blank_retries"] == before["blank_retries"] + 1
    assert to_json(on) == to_json(off)
    fn = next(f for f in on.functions if f.name == "notGpu")
    assert [c.callee for c in fn.calls] == ["cudaMalloc"]


def test_an_open_header_buffer_is_never_replaced_by_the_disk_text(tmp_path, monkeypatch):
    """The LSP hands open buffers to libclang as unsaved files; a header the unit reaches under another
    spelling of its path (here through a symlinked directory) keeps the buffer's text, not a blanked copy of
    the disk's."""
    from trtlint.frontends import UNSAVED

    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "real" / "kernels.h").write_text(
        "#pragma once\n__device__ inline int onDisk() { return 1; }\n", encoding="utf-8")
    (tmp_path / "kern.cu").write_text('#include "real/kernels.h"\nvoid host() { fromBuffer(); }\n', encoding="utf-8")
    buffer = "#pragma once\nvoid fromBuffer() {}\n__device__ inline int inBuffer() { return 2; }\n"
    monkeypatch.setitem(UNSAVED, str(tmp_path / "link" / "kernels.h"), buffer)
    src = SourceFile(path=tmp_path / "kern.cu", rel="kern.cu", kind="cuda", digest="d")
    on = cpp_unit._extract(src, ExtractContext(root=tmp_path), "cuda")
    off = cpp_unit._extract(src, ExtractContext(root=tmp_path), "cuda", blank=False)
    assert to_json(on) == to_json(off)
