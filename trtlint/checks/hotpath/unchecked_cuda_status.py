from __future__ import annotations

import dataclasses
import fnmatch
import re
from typing import Iterable, Optional

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from trtlint.base.facts import Call, CppFunction
from trtlint.config.packs import normalize_callee
from ..base import Rule
from ..examples.hotpath import plugin_cpp
from ._walk import is_debug_only, is_error_path, once_note, reach_diag, reachable, short, where

_CHECK = """#define PLUGIN_CHECK_CUDA(call) do { cudaError_t status = call; if (status != cudaSuccess) { return status; } } while (0)"""

# CUDA runtime calls: the runtime keeps the error of any of its calls as the thread's last error until
# cudaGetLastError reads it, so a checked cudaGetLastError / cudaPeekAtLastError after them in the same function
# checks them too (an asynchronous call's and a synchronizing one's alike: `cudaDeviceSynchronize();` followed by
# `CHECK(cudaGetLastError());` is the common debug idiom). cuBLAS, cuDNN and the driver API keep no such error.
_ASYNC = ("cuda[A-Z]*",)
_LAST_ERROR = ("cudaGetLastError", "cudaPeekAtLastError")


def _checked_later(call: Call, fn: CppFunction, resolve=None) -> bool:
    """Whether ``call`` (in ``fn``) is a CUDA runtime call that a checked read of the last error after it covers
    (``CUDA_CHECK(cudaGetLastError())``, ``if (cudaPeekAtLastError() != cudaSuccess)``, ...): in ``fn``, or in a
    kernel launcher ``fn`` calls after it (``resolve``: the index's call resolution) that reads the error after its
    own launch (the runtime keeps an error until it is read, so that read sees this call's too). A helper that
    only reads the error (a debug check behind a flag) is not counted."""
    name = normalize_callee(call.callee)
    if not any(fnmatch.fnmatchcase(name, p) for p in _ASYNC):
        return False
    at = (call.span.line, call.span.col)
    later = [c for c in fn.calls if c is not call and c.kind == "call" and (c.span.line, c.span.col) >= at]
    if any(_last_error_read(c) for c in later):
        return True
    if resolve is None:
        return False
    for c in later:
        t = resolve(c, fn)
        if t is not None and t is not fn and _launcher_reads_error(t):
            return True
    return False


def _surfaces_later(call: Call, fn: CppFunction, packs) -> bool:
    """Whether ``call`` creates a handle into a local initialised to null (``Call.arg_null`` ``"&null"``:
    ``cublasLtMatrixLayout_t d = NULL; cublasLtMatrixLayoutCreate(&d, ...);``) that a later call of ``fn``, one
    whose status is checked, uses: a failed create leaves the handle null, and that call reports it."""
    names = {_bare(call.args[i]) for i, a in enumerate(call.arg_null) if a == "&null" and i < len(call.args)}
    names.discard("")
    if not names:
        return False
    at = (call.span.line, call.span.col)
    # (a call clang could not resolve, `usr` None, is no evidence: its dropped status is not told apart from a used one)
    return any(c.kind == "call" and c.usr and not c.discarded and (c.span.line, c.span.col) > at and not is_debug_only(c)
               and packs.lookup("status_apis", c.callee) is not None and names.intersection(map(_bare, c.args))
               for c in fn.calls)


def _bare(arg: str) -> str:
    """An argument as written, without blanks, outer parentheses and a leading ``&``: the local's name."""
    a = arg.strip()
    while a.startswith("(") and a.endswith(")"):
        a = a[1:-1].strip()
    return a.lstrip("&").strip() if a.startswith("&") else a


def _last_error_read(c: Call) -> bool:
    return c.kind == "call" and not c.discarded and normalize_callee(c.callee) in _LAST_ERROR


def _launcher_reads_error(fn: CppFunction) -> bool:
    """Whether ``fn`` launches a kernel and then reads the last error and checks it."""
    launch = min(((c.span.line, c.span.col) for c in fn.calls if c.kind == "launch"), default=None)
    return launch is not None and any(_last_error_read(c) and (c.span.line, c.span.col) > launch for c in fn.calls)


def _macro_body(call: Call, fn: CppFunction) -> Optional[Call]:
    """The use of a project macro whose *body* spells ``call`` (its span is the whole use: a call spelled in the
    use's arguments has its own span), or None."""
    return next((m for m in fn.calls if m.kind == "macro" and m.defined_at is not None and m.span == call.span), None)


# a kernel launcher (line 5 to 10 of the helpers) that reads the last error after its launch in the way ``read`` says
_LAUNCHER = ("__global__ void zeroKernel(float* p);\n"
             "int launch(float* p, cudaStream_t stream)\n{{\n    zeroKernel<<<1, 4, 0, stream>>>(p);\n{read}\n}}")

_DIE = "#include <cstdlib>\n#define DIE(msg) { cudaDeviceReset(); exit(EXIT_FAILURE); }"

_TEARDOWN = """#include <NvInfer.h>
#include <cuda_runtime.h>
using namespace nvinfer1;
struct Scratch
{
    void* p{nullptr};
    cudaStream_t s{nullptr};
    void release()
    {
        cudaFree(p);
        cudaStreamDestroy(s);
    }
};
class BarPlugin : public IPluginV2DynamicExt
{
public:
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        return 0;
    }
    void terminate() noexcept override
    {
        mScratch.release();
    }
    ~BarPlugin() override
    {
        cudaEventDestroy(mEvent);
    }

private:
    Scratch mScratch;
    cudaEvent_t mEvent{nullptr};
};
"""


_LT = """#include <cublasLt.h>
#define CHECK(x) do { if ((x) != 0) { return -1; } } while (0)
static int64_t gRows = 4;"""

_OPERATOR = re.compile(r"(?:^|::)operator\W")

_LIBS = """typedef struct cudnnContext* cudnnHandle_t;
typedef enum { CUDNN_STATUS_SUCCESS = 0 } cudnnStatus_t;
cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t stream);
typedef struct cublasContext* cublasHandle_t;
typedef enum { CUBLAS_STATUS_SUCCESS = 0 } cublasStatus_t;
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);
extern cudnnHandle_t gDnn;
extern cublasHandle_t gBlas;"""


class UncheckedCudaStatus(Rule):
    """A CUDA / cuBLAS / cuDNN / NCCL status discarded in a plugin method.

    ## What it does
    Follows the call graph from every plugin and creator method and reports calls whose status result is
    thrown away (the call is a whole expression statement): `cudaMemcpyAsync(...);`, `cublasSgemm(...);`.
    Which calls return a status is the `status_apis` table of the rules/ packs (`cuda*`, `cu*`, `cublas*`,
    `cudnn*`, `nccl*`, ...; `status_except` lists the ones that need no check, such as `cudaGetLastError`).
    A call wrapped in a checking macro (`CUDA_CHECK`, `PLUGIN_CUASSERT`, `PLUGIN_CHECK_CUDA`, ...), assigned,
    compared or cast to `void` is checked. The severity follows the method's temperature, a warning at most
    (a discarded status is a risk, not itself a broken result): warning in hot methods (`enqueue`) and in warm
    ones (`onShapeChange`, V2DynExt `configurePlugin`, `getWorkspaceSize`), info elsewhere. Cleanup on an error path that ends in a failure `return` or ends the
    process (`cudaDeviceReset(); exit(EXIT_FAILURE);`: the exit is TRT205's finding) is not reported. A call only a debug build compiles (an arm of `#ifndef NDEBUG` or `#ifdef _DEBUG`,
    as for TRT302) is not reported, nor one in the branch of an `if` on a run-time debug switch (`if (mDebug)`,
    `if (level == "DEBUG")`, as for TRT302). Two kinds of call are not reported, by the `status_queries` and `status_teardown` tables: queries
    (`cudaGetDevice`, `cudaGetDeviceProperties`, `cudaDeviceGetAttribute`, `cudaOccupancy*`,
    `cudaFuncGetAttributes`, `cudaPointerGetAttributes`, ...), which change nothing and fail only when every
    other call would; and releases (`cudaFree`, `cudaStreamDestroy`, `cudaEventDestroy`, `cublasDestroy`,
    `cudnnDestroy*`, ...), wherever they are: a failed release leaves nothing a caller could do (TRT301 and
    TRT302 judge a release on the hot path for what it costs there). A CUDA runtime call (`cudaMemcpyAsync`,
    `cudaDeviceSynchronize`, ...) followed in the same function by a checked read of the last error
    (`CUDA_CHECK(cudaGetLastError())`, `if (cudaPeekAtLastError() != cudaSuccess)`), or by a call of a project
    function that does one (itself or in a function it calls: a kernel launcher that checks the error after its
    launch), is checked: the runtime keeps its error as the thread's last error until read (cuBLAS, cuDNN and the
    driver API do not). A create whose handle is a local initialised to null (`cublasLtMatrixLayout_t d = NULL;
    cublasLtMatrixLayoutCreate(&d, ...);`) and used afterwards in the same function by a call whose status is
    checked is not reported either: a failed create leaves the handle null, and that call's check reports it.
    The discarded statuses of one API's calls in one function (a descriptor's attributes set one by one) are one
    finding, at the first call, counting them and naming the others as related.
    A bare `cudaGetLastError();` checks nothing (it clears the error). A call spelled in the body of a project
    macro is one finding however many uses expand it (the macro whose body spells it, also when other macros wrap
    it: `CHECK(x)` expanding `DIE(msg)`): at the first use reached from the hottest method, naming
    the macro's definition, counting its expansions, and naming every other use and method as related. The calls
    of one function that run only once (one-time initialisation under a member flag, an autotuner a method runs
    under `if (!mTuned)`: info) are one finding per function, counting the calls by API. A library header's
    versioned symbol (`cublasDestroy_v2`, what `cublas_v2.h` makes of `cublasDestroy`) is judged as its API name.

    ## Why it matters
    CUDA errors are sticky and asynchronous: an unchecked failure in `enqueue` surfaces later, in an
    unrelated call, or becomes silently wrong output. TensorRT can only report a failure that the plugin
    returns.

    ## Example
    ```cpp
    cudaMemsetAsync(outputs[0], 0, bytes, stream);      // status dropped
    ```

    ## Fix
    Check it: return it as the method's status, wrap it in the project's check macro, check
    `cudaGetLastError()` after a run of asynchronous calls, or at least `(void)` it where a failure truly does
    not matter. A finding in a macro's body is fixed once, in the macro.
    """

    code = "TRT304"
    reads = frozenset({"classes", "files", "functions", "lifecycle", "py_creators", "registrations"})
    name = "unchecked-cuda-status"
    family = "hotpath"
    severity = Severity.WARNING  # a discarded status is a risk (a failure goes unnoticed), not itself a broken result

    VALID = [
        {"files": {"plugins/foo.cpp": plugin_cpp("    PLUGIN_CHECK_CUDA(cudaMemsetAsync(outputs[0], 0, 16, stream));", _CHECK)}},
        # a call only a debug build compiles (a sync to find the failing kernel): not the release build's hot path
        {"files": {"plugins/foo.cpp": plugin_cpp("#ifndef NDEBUG\n    cudaStreamSynchronize(stream);\n#endif")}},
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    if (cudaMemsetAsync(outputs[0], 0, 16, stream) != cudaSuccess)\n    {\n        cudaFree(workspace);\n        return -1;\n    }")}},
        # queries: they change nothing, and fail only when every other call would
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    int dev = 0;\n    cudaGetDevice(&dev);\n    int sms = 0;\n"
            "    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);")}},
        # a release in teardown (a V2 plugin's terminate, and a destructor it reaches): nothing can act on a failure
        {"files": {"plugins/bar.cpp": _TEARDOWN}},
        # a release anywhere else: a failed one leaves nothing to do either (TRT301/TRT302 judge it on the hot path)
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    cudaEvent_t done;\n    PLUGIN_CHECK_CUDA(cudaEventCreate(&done));\n    cudaEventDestroy(done);\n"
            "    cudaFree(workspace);", _CHECK)}},
        # the versioned symbol a CUDA library header maps a release to (cublas_v2.h: cublasDestroy -> cublasDestroy_v2)
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    cublasHandle_t h;\n    if (cublasCreate_v2(&h) != CUBLAS_STATUS_SUCCESS)\n    {\n        return -1;\n    }\n"
            "    cublasDestroy_v2(h);", "#include <cublas_v2.h>")}},
        # a project's void wrapper named like the CUDA API, called from a template body (a dependent call): every
        # declaration it can name returns void, so there is no status to drop
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    fill((float*)outputs[0], (const float*)inputs[0], 4);",
            "template <typename T>\nvoid cudaH2Dcpy(T* tgt, const T* src, size_t size);\n"
            "template <typename T>\nvoid fill(T* d, const T* h, size_t n)\n{\n    cudaH2Dcpy(d, h, n);\n}")}},
        # a synchronizing runtime call's error too (the debug idiom: sync, then check the last error)
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    cudaStreamSynchronize(stream);\n    PLUGIN_CHECK_CUDA(cudaGetLastError());", _CHECK)}},
        # the asynchronous calls' errors stay the thread's last error: the checked cudaGetLastError after them reads it
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    cudaMemsetAsync(outputs[0], 0, 16, stream);\n"
            "    cudaMemcpyAsync(outputs[1], inputs[0], 16, cudaMemcpyDeviceToDevice, stream);\n"
            "    PLUGIN_CHECK_CUDA(cudaGetLastError());", _CHECK)}},
        # the kernel launcher called after the memset reads the last error after its launch and returns it: the
        # memset's error is read there
        {"files": {"plugins/foo.cu": plugin_cpp(
            "    cudaMemsetAsync(outputs[0], 0, 16, stream);\n    if (launch((float*) outputs[0], stream) != 0)\n"
            "    {\n        return -1;\n    }", _LAUNCHER.format(read="    cudaError_t err = cudaGetLastError();\n"
                                                               "    return err == cudaSuccess ? 0 : -1;"))}},
        # cleanup on the way out of a failure that ends the process (the exit is TRT205's finding): checking its
        # status could change nothing
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    CHECK_CUDA(cudaMemsetAsync(outputs[0], 0, 16, stream));\n"
            "    if (cudaGetLastError() != cudaSuccess)\n    {\n        cudaDeviceReset();\n        abort();\n    }",
            _DIE + "\n#define CHECK_CUDA(s) { if ((s) != cudaSuccess) { DIE(\"cuda\"); } }")}},
    ]
    INVALID = [
        {
            # one call in the body of a macro (RESET) that two other macros expand: one finding, naming RESET
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    CHECK_CUDA(cudaMemsetAsync(outputs[0], 0, 16, stream));\n"
                "    CHECK_ANY(cudaMemsetAsync(outputs[1], 0, 16, stream));",
                "#define RESET(msg) { cudaDeviceReset(); }\n"
                "#define CHECK_CUDA(s) { if ((s) != cudaSuccess) { RESET(\"cuda\"); } }\n"
                "#define CHECK_ANY(s) { if ((s) != 0) { RESET(\"any\"); } }")},
            "expect": [("plugins/foo.cpp", 17, "the status of cudaDeviceReset (CUDA runtime) is discarded on the hot path "
                        "of FooPlugin::enqueue (in the body of macro RESET, defined at plugins/foo.cpp:5, expanded 2 times)")],
        },
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    cudaMemsetAsync(outputs[0], 0, 16, stream);")},
            "expect": [("plugins/foo.cpp", 15, "the status of cudaMemsetAsync (CUDA runtime) is discarded on the hot path of FooPlugin::enqueue")],
        },
        {
            # a helper that only reads the error (a debug check behind a flag) is no launcher checking its own launch:
            # in a run without the flag the memset's error is never read
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    cudaMemsetAsync(outputs[0], 0, 16, stream);\n    debugCheck();",
                "#include <cstdlib>\nvoid debugCheck()\n{\n    if (std::getenv(\"DEBUG_SYNC\") != nullptr)\n    {\n"
                "        cudaDeviceSynchronize();\n        if (cudaGetLastError() != cudaSuccess)\n        {\n"
                "            abort();\n        }\n    }\n}")},
            "expect": [("plugins/foo.cpp", 26, "the status of cudaMemsetAsync (CUDA runtime) is discarded on the hot path of FooPlugin::enqueue")],
        },
        {
            # the launcher after the memset reads the error and drops it (a bare read clears it): the memset's error is lost
            "files": {"plugins/foo.cu": plugin_cpp(
                "    cudaMemsetAsync(outputs[0], 0, 16, stream);\n    launch((float*) outputs[0], stream);",
                _LAUNCHER.format(read="    cudaGetLastError();\n    return 0;"))},
            "expect": [("plugins/foo.cu", 21, "the status of cudaMemsetAsync (CUDA runtime) is discarded on the hot path of FooPlugin::enqueue")],
        },
        {
            # a configuration flag the block never sets is no one-time guard: the message says nothing of one-time
            # initialisation (the call runs on every inference)
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    if (!gZeroOutput)\n    {\n        cudaMemsetAsync(outputs[0], 0, 16, stream);\n    }",
                "static bool gZeroOutput = false;")},
            "expect": [("plugins/foo.cpp", 17, "the status of cudaMemsetAsync (CUDA runtime) is discarded on the hot path of "
                                               "FooPlugin::enqueue: FooPlugin::enqueue -> cudaMemsetAsync")],
        },
        {
            # a bare cudaGetLastError() reads nothing anyone sees (it clears the error); a checked one before the
            # call cannot see the call's error
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    PLUGIN_CHECK_CUDA(cudaGetLastError());\n    cudaMemsetAsync(outputs[0], 0, 16, stream);\n"
                "    cudaGetLastError();", _CHECK)},
            "expect": [("plugins/foo.cpp", 16, "the status of cudaMemsetAsync (CUDA runtime) is discarded on the hot path of FooPlugin::enqueue")],
        },
        {
            # one call in a macro's body, expanded in two branches: one finding, at the first use, naming the other;
            # the call spelled in RUN's argument is the use's own call: a finding of its own
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    if (inputs[1] == nullptr)\n    {\n        ZERO_OUT(outputs[0], 16);\n    }\n    else\n    {\n"
                "        ZERO_OUT(outputs[0], 32);\n    }\n"
                "    RUN(cudaMemcpyAsync(outputs[1], inputs[0], 16, cudaMemcpyDeviceToDevice, stream));",
                "#define ZERO_OUT(p, n) do { cudaMemsetAsync(p, 0, n, stream); } while (0)\n#define RUN(x) do { x; } while (0)")},
            "expect": [
                ("plugins/foo.cpp", 18, "the status of cudaMemsetAsync (CUDA runtime) is discarded on the hot path of "
                 "FooPlugin::enqueue (in the body of macro ZERO_OUT, defined at plugins/foo.cpp:5, expanded 2 times): "
                 "FooPlugin::enqueue -> cudaMemsetAsync"),
                ("plugins/foo.cpp", 24, "the status of cudaMemcpyAsync (CUDA runtime) is discarded on the hot path of FooPlugin::enqueue: "),
            ],
        },
        {
            # a helper method of the plugin its enqueue runs once (an autotuner under a member flag) is reached in
            # enqueue's context, not as a method of its own TensorRT calls; its discarded statuses are one finding
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    if (!mTuned)\n    {\n        tune(stream);\n        mTuned = true;\n    }").replace(
                "public:\n", "public:\n    bool mTuned{false};\n    void tune(cudaStream_t s);\n", 1)
                + "void FooPlugin::tune(cudaStream_t s)\n{\n    cudaEvent_t a;\n    cudaEventCreate(&a);\n"
                "    for (int i = 0; i < 4; ++i)\n    {\n        cudaEventRecord(a, s);\n        cudaEventSynchronize(a);\n    }\n}\n"},
            "expect": [(
                "plugins/foo.cpp", 27,
                "the statuses of 3 calls (cudaEventCreate, cudaEventRecord, cudaEventSynchronize) are discarded once "
                "(one-time initialisation: guarded by `!mTuned`) on the hot path of FooPlugin::enqueue: "
                "FooPlugin::enqueue -> FooPlugin::tune -> cudaEventCreate",
            )],
        },
        {
            # each library's calls by their own name (not "CUDA driver" for every cu*; cublas* is not CUB's cub*)
            "files": {"plugins/foo.cpp": plugin_cpp("    cudnnSetStream(gDnn, stream);\n    cublasSetStream(gBlas, stream);", _LIBS)},
            "expect": [
                ("plugins/foo.cpp", 22, "the status of cudnnSetStream (cuDNN) is discarded on the hot path of FooPlugin::enqueue"),
                ("plugins/foo.cpp", 23, "the status of cublasSetStream (cuBLAS) is discarded on the hot path of FooPlugin::enqueue"),
            ],
        },
    ]

    VALID += [
        # the assignment of a struct a CUDA library declares (its copy-assignment operator) returns no status
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    cublasLtMatmulAlgo_t algo = {};\n    gAlgo = algo;", "#include <cublasLt.h>\nstatic cublasLtMatmulAlgo_t gAlgo;")}},
    ]

    VALID += [
        # a sync only when a run-time debug switch is on (as for TRT302)
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    if (isDebugMode())\n    {\n        cudaStreamSynchronize(stream);\n    }", "bool isDebugMode();")}},
    ]
    INVALID += [
        {
            # ... but not in its else branch
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    if (isDebugMode())\n    {\n    }\n    else\n    {\n        cudaStreamSynchronize(stream);\n    }",
                "bool isDebugMode();")},
            "expect": [("plugins/foo.cpp", 20, "cudaStreamSynchronize")],
        },
    ]

    VALID += [
        # a create into a handle initialised to null, which a checked call uses next: a failed create leaves the
        # handle null and the checked call reports it
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    cublasLtMatrixLayout_t a = NULL;\n    cublasLtMatrixLayoutCreate(&a, CUDA_R_32F, 4, 4, 4);\n"
            "    CHECK(cublasLtMatrixLayoutSetAttribute(a, CUBLASLT_MATRIX_LAYOUT_ROWS, &gRows, sizeof(gRows)));",
            _LT)}},
    ]
    INVALID += [
        {
            # ... but not when the call that uses it drops its status too (both are reported), nor when the handle
            # starts uninitialised (a failed create leaves garbage that the checked call may not catch)
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    cublasLtMatrixLayout_t a = nullptr;\n    cublasLtMatrixLayout_t b;\n"
                "    cublasLtMatrixLayoutCreate(&a, CUDA_R_32F, 4, 4, 4);\n"
                "    cublasLtMatrixLayoutSetAttribute(a, CUBLASLT_MATRIX_LAYOUT_ROWS, &gRows, sizeof(gRows));\n"
                "    cublasLtMatrixLayoutCreate(&b, CUDA_R_32F, 4, 4, 4);\n"
                "    CHECK(cublasLtMatrixLayoutSetAttribute(b, CUBLASLT_MATRIX_LAYOUT_ROWS, &gRows, sizeof(gRows)));",
                _LT)},
            # (the two creates are one finding: the calls of one API in one function are counted together)
            "expect": [
                ("plugins/foo.cpp", 19, "the statuses of 2 calls of cublasLtMatrixLayoutCreate (cuBLASLt) are "
                                        "discarded on the hot path of FooPlugin::enqueue"),
                ("plugins/foo.cpp", 20, "the status of cublasLtMatrixLayoutSetAttribute (cuBLASLt) is discarded"),
            ],
        },
    ]

    INVALID += [
        {
            # the call that uses the handle names what clang cannot resolve (an enumerator a header of the build
            # declares): nothing shows that its status is checked (here it is not)
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    cublasLtMatrixLayout_t a = NULL;\n    cublasLtMatrixLayoutCreate(&a, CUDA_R_32F, 4, 4, 4);\n"
                "    cublasLtMatrixLayoutSetAttribute(a, LAYOUT_ROWS, &gRows, sizeof(gRows));",
                _LT + "\n#ifdef HAVE_LAYOUT_ENUMS\n#include <layout_enums.h>\n#endif")},
            "expect": [("plugins/foo.cpp", 21, "the status of cublasLtMatrixLayoutCreate (cuBLASLt) is discarded")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        packs = index.packs
        # one call spelled in a macro's body is one finding, however many uses expand it: (macro, callee) -> hits
        groups: dict[tuple, list[tuple[Diagnostic, Call, str, tuple[CppFunction, ...], str]]] = {}
        once: dict[tuple, list[tuple[Diagnostic, Call]]] = {}  # (plugin, entry, function) -> one-time hits
        same: dict[tuple, list[tuple[Diagnostic, Call]]] = {}  # (plugin, entry, function, API) -> hits
        for e, call, chain in reachable(index, ("hot", "warm", "cold"), creators=True):
            if (not call.discarded or call.kind != "call" or is_error_path(call) or is_debug_only(call)
                    or _OPERATOR.search(call.callee)):
                continue  # (an operator of a library's type, `algo = other` of a cublasLtMatmulAlgo_t: no status)
            api = packs.lookup("status_apis", call.callee)
            if api is None or packs.lookup("status_except", call.callee) or packs.lookup("status_queries", call.callee):
                continue
            if (packs.lookup("status_teardown", call.callee) or _checked_later(call, chain[-1], index.resolve_call)
                    or _surfaces_later(call, chain[-1], packs)):
                continue
            d = reach_diag(self, index, e, call, chain, f"the status of {call.callee} ({api.what}) is discarded",
                           f" {where(e.plugin, e.fn, e.temperature)}")
            m = _macro_body(call, chain[-1])
            if m is None:
                low, _note = once_note(call, chain)
                if low is not None:
                    # one-time initialisation (an autotuner, a lazy setup) that checks no status: one root cause
                    # per function, not one finding per call in it
                    once.setdefault((e.plugin, e.fn.usr, chain[-1].usr), []).append((d, call))
                    continue
                # the calls of one API in one function (a descriptor's attributes set one by one): one finding
                same.setdefault((e.plugin, e.fn.usr, chain[-1].usr, normalize_callee(call.callee)), []).append((d, call))
                continue
            # the macro whose body spells the call: a nested one (`CHECK(x)` expanding `DIE(msg)`) when only its
            # body does, else the use's own
            name, at = next(((mac, sp) for n, mac, sp in m.spelled_by if n == call.callee), (m.callee, m.defined_at))
            key = (at.path, at.line, at.col, name, normalize_callee(call.callee))
            groups.setdefault(key, []).append((d, dataclasses.replace(m, callee=name, defined_at=at),
                                               f"{e.plugin}::{e.fn.name}", chain, m.callee))
        for hits in groups.values():
            yield _one_for_macro(hits)
        for hits in once.values():
            yield _one_for_function(hits)
        for hits in same.values():
            yield _one_per_api(hits)


def _one_per_api(hits: list[tuple[Diagnostic, Call]]) -> Diagnostic:
    """One finding for the discarded statuses of one API's calls in one function: the first call's, counting the
    calls, every other call a related location."""
    head = hits[0][0].message.partition(" is discarded")[0]
    return _counted(hits, f"of {head[len('the status of '):] if head.startswith('the status of ') else head}")


def _one_for_function(hits: list[tuple[Diagnostic, Call]]) -> Diagnostic:
    """One finding for the discarded statuses of one function's one-time initialisation: the first call's, naming
    how many calls of which APIs, every other call a related location."""
    counts: dict[str, int] = {}
    for _d, c in hits:
        counts[c.callee] = counts.get(c.callee, 0) + 1
    return _counted(hits, "(" + ", ".join(f"{k} ×{n}" if n > 1 else k for k, n in counts.items()) + ")")


def _counted(hits: list[tuple[Diagnostic, Call]], what: str) -> Diagnostic:
    """The first hit's finding for all of ``hits``: "the statuses of N calls {what} are discarded...", every other
    call a related location (a single hit's finding as it is)."""
    d = hits[0][0]
    if len(hits) == 1:
        return d
    tail = d.message.partition(" is discarded")[2]
    related = [*d.related] + [Related(c.span, f"the status of {c.callee} is discarded here too") for _d, c in hits[1:]]
    return dataclasses.replace(d, message=f"the statuses of {len(hits)} calls {what} are discarded{tail}",
                               related=tuple(related))


def _one_for_macro(hits: list[tuple[Diagnostic, Call, str, tuple[CppFunction, ...], str]]) -> Diagnostic:
    """One finding for a call in a macro's body: the most severe (else first: the hottest walk's) use's, counting
    the uses, naming every other method that reaches one, with the definition and the other uses as related."""
    d, m, entry, _chain, _use = max(hits, key=lambda h: h[0].severity.rank)  # max keeps the first of equals
    others = [h for h in hits if h[0] is not d]
    head, _, tail = d.message.partition(": ")
    also = "".join(f", {x}" for x in dict.fromkeys(h[2] for h in others) if x != entry)
    uses = "expanded once" if len(hits) == 1 else f"expanded {len(hits)} times"
    at = m.defined_at
    msg = f"{head}{also} (in the body of macro {m.callee}, defined at {at.path}:{at.line}, {uses}): {tail}"
    related = [Related(at, f"{m.callee} is defined here: the call is in its body"), *d.related] + [
        Related(mx.span, f"{m.callee} is expanded here too{'' if use == mx.callee else f' (through {use})'}: "
                + " -> ".join([short(f) for f in ch] + [use]))
        for _d, mx, _e, ch, use in others]
    return dataclasses.replace(d, message=msg, related=tuple(related))
