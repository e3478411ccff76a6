from __future__ import annotations

import dataclasses
import re
from typing import Iterable, Optional

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from trtlint.config.packs import normalize_callee
from ..base import Rule
from ..examples.hotpath import RUN_SCALE, debug_arm_local_helper, ns_template_helpers, plugin_cpp
from ._walk import walk_derived, entries, is_error_path, reach_diag, reachable, short, walk_list, where

_NULL = r"(?:0|0x0|0L|0U|nullptr|NULL|\{\}|cudaStreamLegacy|cudaStreamPerThread|cudaStreamDefault|CU_STREAM_LEGACY|CU_STREAM_PER_THREAD)"
_CAST = r"(?:\(\s*(?:cudaStream_t|CUstream)\s*\)\s*|(?:static_cast|reinterpret_cast)\s*<\s*(?:cudaStream_t|CUstream)\s*>\s*)"
_DEFAULT_RE = re.compile(rf"\(?\s*{_CAST}?\(?\s*{_NULL}\s*\)?\s*\)?|(?:cudaStream_t|CUstream)\s*(?:\(\s*(?:0|nullptr)?\s*\)|\{{\s*\}})")


_SIZE_FN = re.compile(r"(?i)workspace_?size")
_STREAMISH = re.compile(r"(?i)stream")  # a library's handle calls take no stream argument; a wrapper that does binds it


def default_stream(text: Optional[str]) -> Optional[str]:
    """How a stream argument names the default stream ("omitted", "0", "cudaStreamPerThread", ...), else None."""
    if text is None:
        return None
    t = " ".join(text.split())
    if t == "":
        return "omitted"
    if _DEFAULT_RE.fullmatch(t):
        return t
    return None


_LAUNCHER = """template <typename T>
__global__ void scaleKernel(T* x)
{
}
static void launchScale(float* x, cudaStream_t stream = 0)
{
    scaleKernel<<<1, 256, 0, stream>>>(x);
}"""


_BY_POINTER = """template <typename T>
__global__ void scaleKernel(T* x)
{
}
static void launchScale(float* x, int n, cudaStream_t* stream)
{
    if (stream == nullptr)
        scaleKernel<<<1, 256>>>(x);
    else
        scaleKernel<<<1, 256, 0, *stream>>>(x);
    if (n > 4)
        scaleKernel<<<1, 256>>>(x);
}"""


_RUN_MACRO = """
#define RUN_SCALE(X)                                                                                                   \\
    {                                                                                                                  \\
        cudaMemsetAsync(X, 0, 4, stream);                                                                              \\
        scaleKernel<<<1, 256, 0, stream>>>(X);                                                                         \\
    }"""


_CASES = """template <int N>
__global__ void scaleKernel(float* x)
{
}
static void launchCases(float* x, int n, cudaStream_t stream)
{
#define SCALE_CASE(N)                                                                                                  \\
    if (n == N)                                                                                                        \\
    {                                                                                                                  \\
        scaleKernel<N><<<1, 256>>>(x);                                                                                 \\
    }                                                                                                                  \\
    else                                                                                                               \\
    {                                                                                                                  \\
        scaleKernel<N * 2><<<1, 256, 0, stream>>>(x);                                                                  \\
    }
    SCALE_CASE(32)
    SCALE_CASE(64)
#undef SCALE_CASE
}"""

_SCALE_ON = """
#define SCALE_ON(X, S) scaleKernel<<<1, 256, 0, S>>>(X)"""

_SCALE_CFG = """
#define SCALE_CFG(X, ...) scaleKernel<<<__VA_ARGS__>>>(X)"""


# a context a plugin keeps its stream and cuBLAS handle in, with a getter and a setter (a project wrapper class)
_CTX = """#include <cublas_v2.h>
__global__ void scaleKernel(float* x)
{
}
struct Ctx
{
    cudaStream_t s{nullptr};
    cublasHandle_t h{nullptr};
    cudaStream_t stream() const
    {
        return s;
    }
    void setStream(cudaStream_t st)
    {
        s = st;
    }
};
static Ctx gCtx;"""


class _FieldStream(str):
    """The default stream read from a field nothing sets (shown as it is, not as a stream argument's text)."""


def _shown(how: str) -> str:
    return how if isinstance(how, _FieldStream) else f"`{how}`"


class _StreamFields:
    """Stream-typed class fields (a plugin's `mStream`, a context struct's `s`, a wrapper's stream behind a `stream()`
    getter) and what the project writes into them, over every function of the index (per field, not per object)."""

    def __init__(self, index) -> None:
        self.index = index
        self._writes: Optional[dict[str, list[str]]] = None  # field (or "*:<class>": all its fields) -> values

    def never_set(self, call) -> Optional[str]:
        """How a call's stream argument reading a field names the default stream (`mCtx.stream()`, a field nothing
        in the project sets to a stream), else None."""
        field = call.stream_field
        if not field:
            return None
        if self._writes is None:
            self._writes = {}
            fns = self.index.functions.values()
            called = {normalize_callee(c.callee).split("::")[-1] for fn in fns if fn.stream_writes is not None
                      for c in fn.calls}
            for fn in fns:
                if fn.stream_writes and self._runs(fn, called):
                    for f, what in fn.stream_writes:
                        self._writes.setdefault(f, []).append(what)
        cls = field.rsplit("::", 2)[-2] if field.count("::") else ""
        if any(default_stream(what) is None for what in self._writes.get(field, []) + self._writes.get("*:" + cls, [])):
            return None  # set somewhere (to `enqueue`'s stream, a stream of its own, anything but the default)
        return _FieldStream(f"`{call.stream_arg}`, whose field {field} nothing in the project sets to a stream")

    def _runs(self, fn, called: set) -> bool:
        """Whether a function that writes a stream field runs: a free function, a plugin's or creator's method
        (TensorRT calls them), a constructor, or a method some call of the project names (a wrapper's
        `setStream` nothing calls sets nothing)."""
        if fn.cls is None or fn.cls in self.index.classes:
            return True
        return fn.name == fn.cls.rsplit("::", 1)[-1] or fn.name in called


class EnqueueDefaultStream(Rule):
    """Work on the default (legacy) stream, or a library handle never bound to the given stream, in `enqueue`.

    ## What it does
    Follows the call graph from every plugin's hot methods (`enqueue`, V3 `setTactic`) and warm methods
    (V3 `onShapeChange`, V2DynExt `configurePlugin`, `getWorkspaceSize`, at warning severity) and reports:
    kernel launches `k<<<g, b>>>` without a stream or with `0`/`nullptr`; calls whose callee has a
    `cudaStream_t` parameter (CUDA async APIs, cuBLASLt, NCCL, your own launchers) given the default stream
    or leaving it to its default; and library handles (cuBLAS, cuDNN, cuSPARSE, per the `stream_handles`
    table of the rules/ packs) used on the path without a `cublasSetStream`/`cudnnSetStream` call on it (one
    finding per method and library, the missing bind, at the first use; the other uses are related locations),
    unless another method of the plugin (its constructor, `initialize`, `configurePlugin`) binds it: the handle
    then works on that stream, not on the default one. A launch without a stream in the branch where its
    function's stream variable is null (`if (stream == nullptr) k<<<g, b>>>(...); else k<<<g, b, 0, *stream>>>(...)`,
    `if (!s)`) is not reported: there the default stream is the stream it was given.
    A stream kept in a class field (a plugin's `mStream`, a context struct's member, a wrapper's `stream()`
    getter returning it) is the default stream when nothing in the project that runs sets the field to a stream
    (a wrapper's setter nobody calls sets nothing).
    A launch written in the body of a macro the project defines is read in the definition (the use's
    arguments in place of the macro's parameters) and reported where the body writes it, once, with the
    macro's uses as related locations; a launch whose configuration is not visible (an SDK's macro, a
    macro parameter that holds the whole configuration) is not judged.
    CUB size queries (a null temp-storage pointer) and calls made inside a workspace-size computation
    (a function named `...WorkspaceSize`) do no work and are not reported; one-time guarded
    initialisation is reported as info, saying so, and so is a call only a debug build compiles (`#ifndef NDEBUG`)
    or only a run-time debug switch runs (`if (mDebug)`, as for TRT302); calls on an error path that ends in a failure `return`
    are not reported.
    When the same call's status is also discarded (TRT304), one finding is reported, this one, with a note
    "also TRT304" (pass the stream and check the status).

    ## Why it matters
    TensorRT gives `enqueue` the stream to work on. Work on the legacy default stream synchronises with every
    other stream of the device, serialises concurrent engines, runs outside the order TensorRT expects (a race
    with the next layer) and breaks CUDA-graph capture of the engine.

    ## Example
    ```cpp
    fooKernel<<<grid, block>>>(in, out, n);                       // default stream
    cudaMemsetAsync(outputs[0], 0, bytes);                         // stream parameter left at 0
    cublasSgemm(mCublas, ...);                                     // handle never bound to `stream`
    ```

    ## Fix
    Pass the `stream` argument of `enqueue` down to every launch and async call
    (`k<<<g, b, smem, stream>>>`, `cudaMemsetAsync(..., stream)`), and bind library handles to it
    (`cublasSetStream(handle, stream)`) before using them.
    """

    code = "TRT303"
    reads = frozenset({"classes", "files", "functions", "lifecycle", "py_creators", "registrations"})
    name = "enqueue-default-stream"
    family = "hotpath"
    supersedes = ("TRT304",)
    severity = Severity.ERROR

    VALID = [
        {"files": {"plugins/foo.cu": plugin_cpp("    launchScale(static_cast<float*>(outputs[0]), stream);", _LAUNCHER)}},
        {"files": {"plugins/foo.cpp": plugin_cpp("    cudaMemsetAsync(outputs[0], 0, 16, stream);")}},
        # spaced chevrons on the given stream (nvcc accepts them; the unit parses cleanly once they are joined)
        {"files": {"plugins/foo.cu": plugin_cpp(
            "    scaleKernel<< <1, 256, 0, stream>> >(static_cast<float*>(outputs[0]));", _LAUNCHER)}},
        # launches and async calls written in a macro's body (TensorRT OSS instanceNormFwdImpl.cu KERNEL_RUN):
        # their arguments are not visible in the source, so nothing is claimed about their stream
        {"files": {"plugins/foo.cu": plugin_cpp("    RUN_SCALE(static_cast<float*>(outputs[0]));", _LAUNCHER + _RUN_MACRO)}},
    ]
    INVALID = [
        {
            # a helper taking the stream by pointer: the launch in the branch where that pointer is null has no stream
            # to pass (nothing is reported there); the one under another condition runs on the default stream
            "files": {"plugins/foo.cu": plugin_cpp("    launchScale(static_cast<float*>(outputs[0]), 8, &stream);",
                                                   _BY_POINTER)},
            "expect": [("plugins/foo.cu", 16, "kernel launch scaleKernel<<<...>>> has no stream")],
        },
        {
            "files": {"plugins/foo.cu": plugin_cpp("    launchScale(static_cast<float*>(outputs[0]));", _LAUNCHER)},
            "expect": [("plugins/foo.cu", 22, "launchScale is given no stream (its stream parameter defaults to the legacy default stream)")],
        },
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    cudaMemsetAsync(outputs[0], 0, 16, 0);")},
            "expect": [("plugins/foo.cpp", 15, "cudaMemsetAsync runs on the default stream (`0`) on the hot path of FooPlugin::enqueue")],
        },
        {
            "files": {"plugins/foo.cu": plugin_cpp(
                "    scaleKernel<<<1, 256>>>(static_cast<float*>(outputs[0]));", _LAUNCHER)},
            "expect": [("plugins/foo.cu", 22, "kernel launch scaleKernel<<<...>>> has no stream")],
        },
        {
            # nvcc's spaced chevrons (MSVC's formatter writes them): the same launch, found the same way
            "files": {"plugins/foo.cu": plugin_cpp(
                "    scaleKernel << <1, 256 >> > (static_cast<float*>(outputs[0]));", _LAUNCHER)},
            "expect": [("plugins/foo.cu", 22, "kernel launch scaleKernel<<<...>>> has no stream")],
        },
        {
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    cublasSgemm(gHandle, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, nullptr, nullptr, 1, nullptr, 1, nullptr, nullptr, 1);",
                "#include <cublas_v2.h>\nstatic cublasHandle_t gHandle;")},
            "expect": [("plugins/foo.cpp", 16, "cuBLAS handle used by cublasSgemm is never bound to a stream on this path")],
        },
        {
            # every cuBLAS routine works on the handle's stream, the batched LAPACK-like ones too
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    cublasSgetrfBatched(gHandle, 4, nullptr, 4, nullptr, nullptr, 1);",
                "#include <cublas_v2.h>\nstatic cublasHandle_t gHandle;")},
            "expect": [("plugins/foo.cpp", 16, "cuBLAS handle used by cublasSgetrfBatched is never bound to a stream on this path")],
        },
        {
            # one missing bind on the path is one finding, however many calls use the handle (a GEMM wrapper's
            # float and half overloads): the other uses are related locations
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    gemm(gHandle, static_cast<float const*>(inputs[0]));\n"
                "    gemm(gHandle, static_cast<__half const*>(inputs[1]));",
                "#include <cublas_v2.h>\n#include <cuda_fp16.h>\nstatic cublasHandle_t gHandle;\n"
                "static void gemm(cublasHandle_t h, float const* a)\n{\n"
                "    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, nullptr, a, 1, nullptr, 1, nullptr, nullptr, 1);\n}\n"
                "static void gemm(cublasHandle_t h, __half const* a)\n{\n"
                "    cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, nullptr, a, 1, nullptr, 1, nullptr, nullptr, 1);\n}")},
            "expect": [("plugins/foo.cpp", 10, "cuBLAS handle used by cublasSgemm (and 1 more call of it on the path) is "
                        "never bound to a stream on this path")],
        },
    ]
    INVALID += [
        {
            # under a local a debug build sets `true` and a release build to a query of CUDA_LAUNCH_BLOCKING (a debug
            # switch: frontends/cpp/debugvalues.py): info, saying why the local is a switch
            "files": {"plugins/foo.cpp": plugin_cpp("    syncAndCheck();", debug_arm_local_helper(
                branch="cudaMemsetAsync(nullptr, 0, 16, 0);"))},
            "expect": [("plugins/foo.cpp", 38, "only when a debug switch is on (`if (checkError)`, where checkError is "
                                               "`isLaunchBlocking()` outside `#ifndef NDEBUG`: true only when "
                                               "CUDA_LAUNCH_BLOCKING is set)")],
        },
    ]
    VALID += [
        # the plugin binds the handle to a stream of its own when it is set up (FasterTransformer's cuBLAS context
        # built in initialize, joined to enqueue's stream by events): not the default stream
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    cublasSgemm(gHandle, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, nullptr, nullptr, 1, nullptr, 1, nullptr, nullptr, 1);",
            "#include <cublas_v2.h>\nstatic cublasHandle_t gHandle;\nstatic cudaStream_t gStream;").replace(
            "public:\n", "public:\n    FooPlugin()\n    {\n        cublasSetStream(gHandle, gStream);\n    }\n", 1)}},
        # a workspace-size helper runs a CUB-style algorithm with a null buffer: a size query, no work
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    size_t bytes = computeTopkWorkspaceSize(16);",
            "void radixTopk(void* buf, size_t& bytes, cudaStream_t s);\n"
            "static size_t computeTopkWorkspaceSize(int n)\n{\n    size_t bytes = 0;\n    radixTopk(nullptr, bytes, 0);\n    return bytes;\n}")}},
        # a project GEMM wrapper that takes the stream (TensorRT OSS modulatedDeformConv cublasGemmWrap) is no
        # library call on an unbound handle
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    cublasGemmWrap(gHandle, stream);",
            "#include <cublas_v2.h>\nstatic cublasHandle_t gHandle;\ncublasStatus_t cublasGemmWrap(cublasHandle_t h, cudaStream_t s);")}},
        # ... also when it is a template called from a template (the call is dependent: no declaration to read)
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    gemm<float>(stream);",
            "#include <cublas_v2.h>\nstatic cublasHandle_t gHandle;\n"
            "template <typename T>\ncublasStatus_t cublasGemmWrap(cublasHandle_t h, cudaStream_t s);\n"
            "template <typename T>\nvoid gemm(cudaStream_t stream)\n{\n    cublasGemmWrap<T>(gHandle, stream);\n}")}},
    ]

    VALID += [
        # a CUB temp-storage size query (a null buffer) does no work, whatever stream it is given; the call that does
        # the work is on the given stream
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    size_t bytes = 0;\n"
            "    cub::DeviceReduce::Sum(nullptr, bytes, static_cast<float const*>(inputs[0]), static_cast<float*>(outputs[0]), 16);\n"
            "    cub::DeviceReduce::Sum(workspace, bytes, static_cast<float const*>(inputs[0]), static_cast<float*>(outputs[0]), 16, stream);",
            "namespace cub\n{\nstruct DeviceReduce\n{\n    static cudaError_t Sum(void* temp, size_t& bytes, float const* in, "
            "float* out, int n, cudaStream_t stream = 0);\n};\n} // namespace cub")}},
    ]

    INVALID += [
        {
            # a cuBLAS handle the plugin reaches through a project wrapper class, never bound to a stream
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    mCublasWrapper->gemm(static_cast<float const*>(inputs[0]), static_cast<float*>(outputs[0]), 16);",
                "#include <cublas_v2.h>\nclass CublasWrapper\n{\npublic:\n    void gemm(float const* a, float* c, int n)\n    {\n"
                "        float alpha = 1.f, beta = 0.f;\n"
                "        cublasSgemm(mHandle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, n, a, n, &beta, c, n);\n    }\n"
                "    cublasHandle_t mHandle{nullptr};\n};\nstatic CublasWrapper* mCublasWrapper = nullptr;")},
            "expect": [("plugins/foo.cpp", 12, "cuBLAS handle used by cublasSgemm is never bound to a stream on this path (no "
                                               "cublasSetStream* call), so it runs on the default stream, on the hot path of "
                                               "FooPlugin::enqueue: FooPlugin::enqueue -> CublasWrapper::gemm -> cublasSgemm")],
        },
    ]
    INVALID += [
        {
            # a launch in a branch of a data-type dispatch that returns the launch's status is on the hot path
            "files": {"plugins/foo.cu": plugin_cpp(
                "    if (inputDesc[0].type == DataType::kFLOAT)\n    {\n"
                "        scaleKernel<<<1, 256>>>(static_cast<float*>(outputs[0]));\n"
                "        cudaError_t status = cudaGetLastError();\n        return status;\n    }\n    return 1;", _LAUNCHER)},
            "expect": [("plugins/foo.cu", 24, "kernel launch scaleKernel<<<...>>> has no stream")],
        },
    ]

    VALID += [
        # the same helpers passing the stream down
        {"files": {"plugins/foo.cu": plugin_cpp(RUN_SCALE, ns_template_helpers("    int unused = 0;"))}},
    ]
    INVALID += [
        {
            # a launch in a function template in a namespace, called from another with a dependent argument (the call
            # names it unqualified, as does a call whose declaration did not resolve), and explicitly instantiated
            "files": {"plugins/foo.cu": plugin_cpp(RUN_SCALE, ns_template_helpers("    int unused = 0;", stream=""))},
            "expect": [("plugins/foo.cu", 15, "kernel launch scaleKernel<T><<<...>>> has no stream on the hot path of "
                                              "FooPlugin::enqueue: FooPlugin::enqueue -> runScale -> launchScale -> scaleKernel<T>")],
        },
    ]

    INVALID += [
        {
            # launches written in the body of a macro the project defines (one macro use per head size): the one
            # without a stream is reported where the body writes it, once, each use that expands it related
            "files": {"plugins/foo.cu": plugin_cpp(
                "    launchCases(static_cast<float*>(outputs[0]), 32, stream);", _CASES)},
            "expect": [("plugins/foo.cu", 14, "kernel launch scaleKernel<<<...>>> has no stream on the hot path of "
                                              "FooPlugin::enqueue: FooPlugin::enqueue -> launchCases -> scaleKernel")],
        },
        {
            # the stream is the macro's parameter: the use's argument is what the launch gets
            "files": {"plugins/foo.cu": plugin_cpp(
                "    SCALE_ON(static_cast<float*>(outputs[0]), 0);", _LAUNCHER + _SCALE_ON)},
            "expect": [("plugins/foo.cu", 13, "kernel launch scaleKernel<<<...>>> runs on the default stream (`0`)")],
        },
    ]
    VALID += [
        {"files": {"plugins/foo.cu": plugin_cpp(
            "    SCALE_ON(static_cast<float*>(outputs[0]), stream);", _LAUNCHER + _SCALE_ON)}},
        # a configuration that is one macro parameter may hold all four arguments: nothing is claimed
        {"files": {"plugins/foo.cu": plugin_cpp(
            "    SCALE_CFG(static_cast<float*>(outputs[0]), 1, 256, 0, stream);", _LAUNCHER + _SCALE_CFG)}},
    ]

    INVALID += [
        {
            # the stream a project wrapper holds (read through its getter), which nothing sets: the setter is never
            # called, so the launch runs on the default stream the field is initialised to
            "files": {"plugins/foo.cu": plugin_cpp(
                "    scaleKernel<<<1, 256, 0, gCtx.stream()>>>(static_cast<float*>(outputs[0]));", _CTX)},
            "expect": [("plugins/foo.cu", 32, "kernel launch scaleKernel<<<...>>> runs on the default stream "
                                              "(`gCtx.stream()`, whose field Ctx::s nothing in the project sets to a stream)")],
        },
        {
            # the wrapper's handle bound to the wrapper's stream, which is never set: bound to the default stream
            "files": {"plugins/foo.cu": plugin_cpp(
                "    cublasSetStream(gCtx.h, gCtx.s);\n"
                "    cublasSgemm(gCtx.h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, nullptr, nullptr, 1, nullptr, 1, nullptr, nullptr, 1);",
                _CTX)},
            "expect": [("plugins/foo.cu", 32, "cublasSetStream runs on the default stream (`gCtx.s`, whose field Ctx::s")],
        },
    ]
    VALID += [
        # the same wrapper given enqueue's stream first (through its setter, or the field directly)
        {"files": {"plugins/foo.cu": plugin_cpp(
            "    gCtx.setStream(stream);\n"
            "    scaleKernel<<<1, 256, 0, gCtx.stream()>>>(static_cast<float*>(outputs[0]));", _CTX)}},
        {"files": {"plugins/foo.cu": plugin_cpp(
            "    gCtx.s = stream;\n"
            "    cublasSetStream(gCtx.h, gCtx.s);\n"
            "    cublasSgemm(gCtx.h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, nullptr, nullptr, 1, nullptr, 1, nullptr, nullptr, 1);",
            _CTX)}},
        # a parameter struct brace-initialised with the stream in a template (a dependent type): set by that
        {"files": {"plugins/foo.cu": plugin_cpp(
            "    forward(static_cast<float*>(outputs[0]), stream);",
            "template <typename T>\nstruct Param\n{\n    T* x;\n    cudaStream_t stream;\n};\n"
            "template <typename T>\n__global__ void k(Param<T> p)\n{\n}\n"
            "template <typename T>\nvoid invoke(Param<T> p)\n{\n    k<T><<<1, 1, 0, p.stream>>>(p);\n}\n"
            "template <typename T>\nvoid forward(T* x, cudaStream_t s)\n{\n    Param<T> p{x, s};\n    invoke(p);\n}")}},
        # a stream of the wrapper's own, created when it is constructed (not the default stream)
        {"files": {"plugins/foo.cu": plugin_cpp(
            "    scaleKernel<<<1, 256, 0, gOwn.s>>>(static_cast<float*>(outputs[0]));",
            _CTX + "\nstruct Own\n{\n    cudaStream_t s{};\n    Own()\n    {\n        cudaStreamCreate(&s);\n    }\n};\nstatic Own gOwn;")}},
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        packs = index.packs
        in_macros: dict[tuple, list] = {}  # a launch a macro's body writes -> [its finding, the other uses reaching it]
        fields = _StreamFields(index)
        for e, call, chain in reachable(index, ("hot", "warm")):
            if is_error_path(call) or any(_SIZE_FN.search(f.name) for f in chain[1:]):
                continue  # (a workspace-size computation runs its algorithm in size-query mode: no work)
            how = None
            if call.kind == "launch":
                if call.stream_null is not None:
                    continue  # (in the branch where the stream it was given is null: that is the default stream)
                how = default_stream(call.stream_arg) or fields.never_set(call)  # None also in a macro's body
                if how is None:
                    continue
                text = (f"kernel launch {call.callee}<<<...>>> has no stream" if how == "omitted"
                        else f"kernel launch {call.callee}<<<...>>> runs on the default stream ({_shown(how)})")
                text += " " + where(e.plugin, e.fn, e.temperature)
            elif call.kind == "call" and call.stream_arg is not None:
                how = default_stream(call.stream_arg) or fields.never_set(call)
                if how is None or packs.lookup("stream_exempt", call.callee):
                    continue
                if packs.lookup("size_queries", call.callee) and call.args and default_stream(call.args[0]) not in (None, "omitted"):
                    continue  # a temp-storage size query does no work
                if how == "omitted":
                    text = (f"{call.callee} is given no stream (its stream parameter defaults to the legacy default "
                            f"stream) {where(e.plugin, e.fn, e.temperature)}")
                else:
                    text = f"{call.callee} runs on the default stream ({_shown(how)}) {where(e.plugin, e.fn, e.temperature)}"
            else:
                continue
            if call.kind == "launch" and call.defined_at is not None:
                # written in a macro's body: one finding where the body writes it, each use that expands it related
                key = (call.defined_at, call.callee)
                if key in in_macros:
                    in_macros[key][1].append(call.span)
                else:
                    in_macros[key] = [self._diag(index, e, call, chain, text), []]
                continue
            yield self._diag(index, e, call, chain, text)
        for (at, _callee), (d, uses) in in_macros.items():
            first = d.span
            yield dataclasses.replace(d, span=at, related=d.related + tuple(
                Related(u, "the macro that launches it is used here") for u in [first] + uses))
        yield from self._handles(index)

    def _diag(self, index, e, call, chain, text) -> Diagnostic:
        return reach_diag(self, index, e, call, chain, text)

    def _handles(self, index) -> Iterable[Diagnostic]:
        handles = index.packs.stream_handles
        if not handles:
            return
        seen: set[tuple] = set()
        # what depends on the packs' handles and a callee's name only: kept from check to check in the editor's session
        carry = index.__dict__.get("_trtlint_carry")
        pure = carry.pure.setdefault(("stream-handles", id(handles)), ({}, {})) if carry is not None else ({}, {})
        last, uses = pure  # callee -> its last name component, normalized; (handle, name) -> does the name use it

        def last_of(callee: str) -> str:
            n = last.get(callee)
            if n is None:
                n = last[callee] = normalize_callee(callee).split("::")[-1]
            return n

        def summary(walk) -> tuple:
            """Of one entry's walk: each call's last name component (matched by it, so that a wrapper's methods,
            CublasWrapper::cublasSetStream, count), whether some call binds each handle's stream, and whether each
            call is a library call given no stream (the only kind reported: not a project function, nor one given
            the stream explicitly, cublasGemmWrap(h, stream, ...))."""
            names = tuple(last_of(c.callee) for c, _ in walk)
            unique = set(names)
            bound = tuple(any(h.is_bind(n) for n in unique) for h in handles)
            plain = tuple(call.kind == "call" and not is_error_path(call) and call.stream_arg is None
                          and index.resolve_call(call) is None and not any(_STREAMISH.search(a) for a in call.args)
                          for call, _chain in walk)
            return names, bound, plain

        def of(fn) -> tuple:
            return walk_derived(index, fn, "stream-handles", summary)

        called: dict[str, list[bool]] = {}  # plugin -> whether a call below one of its methods binds each handle

        def bound_elsewhere(plugin: str, hi: int) -> bool:
            """A method of the same plugin off the hot path (its constructor, `initialize`, `configurePlugin`) binds
            the library's handle: it runs on that stream, not on the default one (whether that stream is ordered
            with `enqueue`'s is the plugin's design, e.g. joined by events)."""
            if not called:
                for x in entries(index, ("hot", "warm", "cold")):
                    b = called.setdefault(x.plugin, [False] * len(handles))
                    for i, v in enumerate(of(x.fn)[1]):
                        b[i] = b[i] or v
            return called[plugin][hi] if plugin in called else False

        for e in entries(index, ("hot", "warm")):
            walk = walk_list(index, e.fn)
            names, bound, plain = of(e.fn)
            calls = None
            for hi, h in enumerate(handles):
                if bound[hi] or bound_elsewhere(e.plugin, hi):
                    continue
                if calls is None:
                    calls = [(call, chain, n) for (call, chain), n, p in zip(walk, names, plain) if p]
                # one root cause per path and library: the missing bind. One finding at the first use, the other
                # uses on the path (a wrapper's float and half instances) as related locations
                found = []
                for call, chain, n in calls:
                    u = uses.get((hi, n))
                    if u is None:
                        u = uses[(hi, n)] = h.is_use(n)
                    if not u:
                        continue
                    key = (call.span.path, call.span.line, call.span.col)
                    if key in seen:
                        continue
                    seen.add(key)
                    found.append((call, chain))
                if not found:
                    continue
                call, chain = found[0]
                more = found[1:]
                also = f" (and {len(more)} more call{'s' if len(more) != 1 else ''} of it on the path)" if more else ""
                text = (f"{h.library} handle used by {call.callee}{also} is never bound to a stream on this path "
                        f"(no {' / '.join(h.bind)} call), so it runs on the default stream, "
                        f"{where(e.plugin, e.fn, e.temperature)}")
                d = self._diag(index, e, call, chain, text)
                if more:
                    d = dataclasses.replace(d, related=tuple(d.related) + tuple(
                        Related(c.span, f"{c.callee} uses the handle too: "
                                        + " -> ".join([short(f) for f in ch] + [c.callee])) for c, ch in more))
                yield d
