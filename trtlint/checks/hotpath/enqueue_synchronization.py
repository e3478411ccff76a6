from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic
from ..base import Rule
from ..examples.hotpath import (RUN_SCALE, WS_HELPERS, debug_arm_local_helper, debug_switch_helper,
                                ns_template_helpers, plugin_cpp, plugin_ws_cpp, ws_call)
from ._walk import hot_diag, hot_hits, once_note


_BUF = """struct Buf
{
    void* p{nullptr};
    Buf& operator=(Buf&& o) noexcept
    {
        cudaFree(p);
        p = o.p;
        return *this;
    }
};"""


_CSC = "#define CSC(call, err) do { cudaError_t cudaStatus = call; if (cudaStatus != cudaSuccess) { return err; } } while (0)"


_DEBUG_SYNC = """inline void syncCheck()
{
#if !defined(NDEBUG)
    cudaDeviceSynchronize();
    cudaGetLastError();
#else
    return;
#endif
}"""

class EnqueueSynchronization(Rule):
    """A synchronizing call reachable from `enqueue`.

    ## What it does
    Follows the call graph from every plugin's `enqueue` like TRT301 and reports calls listed in the
    `synchronizing` table of the rules/ packs: device/stream/event synchronization, copies and
    memsets on the legacy default stream (`cudaMemcpy`, `cudaMemset`: the host waits for most copies, not for
    a device-to-device one nor a device memset, but the legacy stream waits for and holds up TensorRT's
    stream either way), and calls that synchronize implicitly (`cudaFree`). The message shows the chain. A call reached only through a destructor or an assignment operator (releasing what an
    object owns, e.g. a tensor view being reassigned) is not reported: whether the object owns anything on
    that path is not known statically, and a view owns nothing. Nor is one-time initialisation under a guard
    (as for TRT301): it runs once, not per inference. Nor is a call only a debug build compiles (an arm of
    `#ifndef NDEBUG`, `#if !defined(NDEBUG)`, `#ifdef _DEBUG`, or the `#else` of `#ifdef NDEBUG`, in its function or
    a caller on the way): a debug build's extra work, not every inference's; nor, the same way, one in the branch of an
    `if` on a run-time debug switch (`if (level == "DEBUG")` after `getenv("X_DEBUG_LEVEL")`, `if (mDebug)`,
    `if (isDebugMode() && ...)`: a condition every `||` alternative of which tests a name or string with a `debug` word;
    not its `else`, nor a negated switch, nor an ordering such as `level >= kDEBUG`, whose meaning depends on the
    enum's order). A switch is also a local a debug build's arm declares (`#ifndef NDEBUG` `bool const checkError =
    true;`) whose declaration in the conditional's other arms is `false`, a debug test, or a call of a function
    without parameters that is false unless a debugging environment variable is set (its name has a `debug` word, or
    `CUDA_LAUNCH_BLOCKING`, under which every launch already synchronizes); so is that local when the analysed build
    compiles the release arm, and such a function's call itself (`if (isLaunchBlocking())`). A local declared outside
    the arms, or set in the other arm from anything else (a configuration flag, an environment variable without a
    debug word), is no switch. Nor is a call in a branch taken only when a pointer
    parameter is null (`if (!ws)`, `if (n > 1 && ws == nullptr)`, the `else` of `if (ws)`) where every way to
    it passes a pointer from `enqueue`'s workspace and the plugin asks for one (as for TRT301: given workspace).
    When the same call's status is also discarded (TRT304), one finding is reported, this one, with a note
    "also TRT304": removing the synchronization removes both.

    ## Why it matters
    A synchronization in `enqueue` stalls the host or TensorRT's stream until other work drains, serialises
    TensorRT's streams and is illegal during CUDA-graph capture (the capture fails, or is invalidated).

    ## Example
    ```cpp
    cudaMemcpy(host, dev, n, cudaMemcpyDeviceToHost);   // in enqueue
    ```

    ## Fix
    Use the async form on the given stream (`cudaMemcpyAsync(..., stream)`), keep results on the device, or
    move the work to a configure-time method.
    """

    code = "TRT302"
    reads = frozenset({"classes", "files", "functions", "lifecycle", "py_creators", "registrations"})
    name = "enqueue-synchronization"
    family = "hotpath"
    supersedes = ("TRT304",)
    confirm = "graph-capture"

    VALID = [
        {"files": {"plugins/foo.cpp": plugin_cpp("    cudaMemcpyAsync(outputs[0], inputs[0], 16, cudaMemcpyDeviceToDevice, stream);")}},
        # an error path that ends in a failure return is not the hot path
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    if (cudaGetLastError() != cudaSuccess)\n    {\n        cudaDeviceSynchronize();\n        return -1;\n    }")}},
        # only through an assignment operator that releases what the object owns (a view owns nothing)
        {"files": {"plugins/foo.cpp": plugin_cpp("    Buf a;\n    a = Buf();", _BUF)}},
        # code only a debug build compiles (a sync after each kernel to find the failing one), here and in a helper
        {"files": {"plugins/foo.cpp": plugin_cpp("#ifndef NDEBUG\n    cudaDeviceSynchronize();\n#endif\n    syncCheck();",
                                                 _DEBUG_SYNC)}},
    ]
    INVALID = [
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    cudaStreamSynchronize(stream);")},
            "expect": [("plugins/foo.cpp", 15, "cudaStreamSynchronize (stream synchronization)")],
        },
        {
            # an arm of another conditional (a build option, not the debug build): judged as every inference's work
            "files": {"plugins/foo.cpp": plugin_cpp("#ifndef FAST_PATH\n    cudaDeviceSynchronize();\n#endif")},
            "expect": [("plugins/foo.cpp", 16, "cudaDeviceSynchronize (device-wide synchronization)")],
        },
        {
            # a status-returning check macro (TensorRT OSS CSC) whose `if ... return err;` comes from the macro
            # body: the checked call itself runs on every enqueue
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    CSC(cudaMemcpy(outputs[0], inputs[0], 16, cudaMemcpyDeviceToDevice), -1);", _CSC)},
            "expect": [("plugins/foo.cpp", 15, "cudaMemcpy (copy on the legacy default stream) synchronizes on the hot path")],
        },
    ]

    INVALID += [
        {
            # `if (mX) return ...;` is a one-time guard only when what follows sets mX: here it is a configuration
            # switch, and the sync after it runs on every call
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    if (gSkipSync)\n    {\n        return 0;\n    }\n    cudaStreamSynchronize(stream);",
                "static bool gSkipSync = false;")},
            "expect": [("plugins/foo.cpp", 19, "cudaStreamSynchronize (stream synchronization) synchronizes on the hot path")],
        },
        {
            # the branches of a data-type dispatch (an if-chain) return their status: the sync in one runs on every
            # call of that type
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    cudaError_t status = cudaSuccess;\n    if (inputDesc[0].type == DataType::kHALF)\n    {\n"
                "        status = cudaMemsetAsync(outputs[0], 0, 16, stream);\n        return status;\n    }\n"
                "    else if (inputDesc[0].type == DataType::kFLOAT)\n    {\n"
                "        status = cudaMemsetAsync(outputs[0], 0, 32, stream);\n        cudaStreamSynchronize(stream);\n"
                "        return status;\n    }\n    return 1;")},
            "expect": [("plugins/foo.cpp", 24, "cudaStreamSynchronize (stream synchronization) synchronizes on the hot path")],
        },
    ]

    INVALID += [
        {
            # a function template in a namespace, called from another with a dependent argument (the call names it
            # unqualified, as does a call whose declaration did not resolve), and explicitly instantiated
            "files": {"plugins/foo.cu": plugin_cpp(RUN_SCALE, ns_template_helpers("    cudaDeviceSynchronize();"))},
            "expect": [("plugins/foo.cu", 14, "FooPlugin::enqueue -> runScale -> launchScale -> cudaDeviceSynchronize")],
        },
    ]

    VALID += [
        # the helper frees its own buffer only when it was given no workspace (`if (n > 1 && workspace == nullptr)`);
        # it is given enqueue's, carved and advanced by an offset helper, and the plugin asks for one
        {"files": {"plugins/foo.cpp": plugin_ws_cpp(ws_call(), WS_HELPERS)}},
    ]
    INVALID += [
        {
            # the same helper handed a null workspace: the free runs on every call
            "files": {"plugins/foo.cpp": plugin_ws_cpp(ws_call("nullptr"), WS_HELPERS)},
            "expect": [("plugins/foo.cpp", 22, "cudaFree (implicit device synchronization (cudaFree)) synchronizes on the hot path "
                                               "of FooPlugin::enqueue: FooPlugin::enqueue -> groupNorm -> meanVar -> cudaFree")],
        },
        {
            # ... or enqueue's workspace, but the plugin may ask for none (a conditional with a 0 arm)
            "files": {"plugins/foo.cpp": plugin_ws_cpp(ws_call(), WS_HELPERS, "return nbInputs > 1 ? 4096 : 0;")},
            "expect": [("plugins/foo.cpp", 22, "FooPlugin::enqueue -> groupNorm -> meanVar -> cudaFree")],
        },
    ]

    VALID += [
        # a sync after each kernel only when a run-time debug switch is on (the environment variable is DEBUG), in a
        # helper; and under a member flag named for debugging, joined by `&&` with another test
        {"files": {"plugins/foo.cpp": plugin_cpp("    syncAndCheck();", debug_switch_helper())}},
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    if (mDebug && stream != nullptr)\n    {\n        cudaStreamSynchronize(stream);\n    }",
            "static bool mDebug = false;")}},
    ]
    INVALID += [
        {
            # ... but not its else branch, nor what follows the if: they run on every call
            "files": {"plugins/foo.cpp": plugin_cpp("    syncAndCheck();", debug_switch_helper(
                other="cudaDeviceSynchronize();", after="cudaStreamSynchronize(0);"))},
            "expect": [("plugins/foo.cpp", 19, "FooPlugin::enqueue -> syncAndCheck -> cudaDeviceSynchronize"),
                       ("plugins/foo.cpp", 22, "FooPlugin::enqueue -> syncAndCheck -> cudaStreamSynchronize")],
        },
        {
            # a negated switch (the branch runs when debugging is off) and an ordering against a debug level (whether
            # it admits only the debug level depends on the enum's order): every inference's work
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    if (!mDebug)\n    {\n        cudaStreamSynchronize(stream);\n    }\n"
                "    if (mLevel >= kDEBUG)\n    {\n        cudaDeviceSynchronize();\n    }",
                "static bool mDebug = false;\nenum Level { kERROR, kINFO, kDEBUG };\nstatic Level mLevel = kERROR;")},
            "expect": [("plugins/foo.cpp", 19, "cudaStreamSynchronize (stream synchronization) synchronizes"),
                       ("plugins/foo.cpp", 23, "cudaDeviceSynchronize (device-wide synchronization) synchronizes")],
        },
    ]

    VALID += [
        # a sync under `if (checkError)`, a local a debug build sets `true` (`#ifndef NDEBUG`) and a release build to
        # `isLaunchBlocking()`, which reads CUDA's debugging switch CUDA_LAUNCH_BLOCKING (launches already synchronize
        # under it); the same query tested directly; and a release arm that sets it `false`
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    syncAndCheck();\n    if (isLaunchBlocking())\n    {\n        cudaStreamSynchronize(stream);\n    }",
            debug_arm_local_helper())}},
        {"files": {"plugins/foo.cpp": plugin_cpp("    syncAndCheck();", debug_arm_local_helper(release="false"))}},
        # ... and the build the analysis follows is a release one (CMake's release build type defines NDEBUG): the
        # declaration it compiles is the `#else` arm's, `isLaunchBlocking()`
        {"files": {"CMakeLists.txt": "project(foo)\nset(CMAKE_BUILD_TYPE Release)\nadd_library(foo SHARED plugins/foo.cpp)\n",
                   "plugins/foo.cpp": plugin_cpp("    syncAndCheck();", debug_arm_local_helper())}},
    ]
    INVALID += [
        {
            # the release arm sets the local from a configuration switch (an environment variable with no debug
            # word), or from a global flag; and a local declared outside any arm: the sync runs in a release build
            "files": {"plugins/foo.cpp": plugin_cpp("    syncAndCheck();", debug_arm_local_helper(release="isSyncAll()"))},
            "expect": [("plugins/foo.cpp", 38, "FooPlugin::enqueue -> syncAndCheck -> cudaDeviceSynchronize")],
        },
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    syncAndCheck();", debug_arm_local_helper(release="isFlagSet()"))},
            "expect": [("plugins/foo.cpp", 38, "FooPlugin::enqueue -> syncAndCheck -> cudaDeviceSynchronize")],
        },
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    syncAndCheck();", debug_arm_local_helper(
                decl="    bool const checkError = isFlagSet();"))},
            "expect": [("plugins/foo.cpp", 38, "FooPlugin::enqueue -> syncAndCheck -> cudaDeviceSynchronize")],
        },
        {
            # a configuration switch's query tested directly
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    if (isSyncAll())\n    {\n        cudaStreamSynchronize(stream);\n    }", debug_arm_local_helper())},
            "expect": [("plugins/foo.cpp", 52, "FooPlugin::enqueue -> cudaStreamSynchronize")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        for hit in hot_hits(index, "synchronizing"):
            if once_note(hit.call, hit.chain)[0] is not None:
                continue  # once, or only on release: not per inference
            yield hot_diag(self, hit, "synchronizes", index)
