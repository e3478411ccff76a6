from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from ..base import Rule
from ..examples.hotpath import plugin_cpp
from ..examples.plugin import (ACCEPTS_FLOAT_HALF, accepted_type_plugin, after_switch, configure_plugin,
                               constructed_dispatch, exits_plugin, fail_helper_files, own_program, own_request, profile_program)
from ..hotpath._walk import short
from ._escape import chain_text
from ._exits import exit_sites

_ASSERT = "#define PLUGIN_ASSERT(a) do { if (!(a)) { abort(); } } while (0)"
_CHECK = "#define CHECK(e) do { if ((e) != cudaSuccess) { exit(1); } } while (0)"
_SM = _ASSERT + """
static int getSmVersion()
{
    return 80;
}"""
_FIELD_TYPE = "        PLUGIN_ASSERT(fc->fields[0].type == PluginFieldType::kINT32);"
_HEAD_SIZE = ("        int32_t headSize = *static_cast<int32_t const*>(fc->fields[0].data);\n"
              "        PLUGIN_ASSERT(headSize == 64 || headSize == 128);")
_PARSER = {"app/build.cpp": '#include <NvOnnxParser.h>\nint parse(char const* path);\n'}
_LOADER = {"app/infer.py": ('import ctypes\nimport tensorrt as trt\n\nctypes.CDLL("build/libfooplugin.so")\n\n\n'
                            'def load(runtime, data):\n    return runtime.deserialize_cuda_engine(data)\n')}
_TRTEXEC = {"app/build.py": ('import subprocess\n\nsubprocess.run(["trtexec", "--onnx=model.onnx",\n'
                             '                "--staticPlugins=build/libfooplugin.so"], check=True)\n')}
_EXPORT = {"export/foo.py": ('from onnx import helper\n\n\ndef foo_node():\n'
                             '    return helper.make_node("FooPlugin", ["x"], ["y"], n=4)\n')}
_DIMS_EQ = "        assert(in[0].desc.dims.d[2] == in[1].desc.dims.d[2]);"
_IN_TYPE = "        PLUGIN_ASSERT(in[0].type == DataType::kFLOAT);"
# a rank and a dimension equal to a constant, in an IPluginV2DynamicExt's configurePlugin (decided at build)
_WILDCARD = ("        PLUGIN_ASSERT(in[1].desc.dims.nbDims == 3 || (in[1].desc.dims.nbDims == 4 && "
             "in[1].desc.dims.d[3] == 1));")
_RANK = _ASSERT + """
static void checkRank(int n)
{
    PLUGIN_ASSERT(n == 3);
}"""


# switches on the plugin's own enums (a scoped one set from an integer, an unscoped one), with a default that asserts
_ENUMS = """#include <cassert>
enum class Tactic : int32_t
{
    kNaive = 1,
    kSmart = 2,
};
enum Mode { kNarrow, kWide };
static Tactic gTactic = Tactic(2);
static Mode gMode = kNarrow;"""
_SIZES = "        unsigned n = elementSize(inputDesc[0].type) + tile(gTactic);"
_ENUM_SWITCH = """        switch (gTactic)
        {
        case Tactic::kNaive: break;
        case Tactic::kSmart: break;
        default: assert(0);
        }
        switch (gMode)
        {
        case kNarrow:
        case kWide: break;
        default: assert(false);
        }"""


class ProcessExitInPlugin(Rule):
    """A check on a runtime status that ends the process when TensorRT loads or runs a plugin.

    ## What it does
    Follows the call graph from the methods TensorRT calls while it deserializes an engine, creates an
    execution context or runs inference, into project functions and macros, and reports the checks there that
    end the process on a *runtime status*. The runtime entries: a plugin's `enqueue` (every plugin
    generation), `setTactic`, `onShapeChange`, `attachToContext`, an IPluginV2DynamicExt's `configurePlugin` (it
    runs whenever the input shapes change; IPluginV2Ext's, IPluginV2IOExt's and IPluginV3OneBuild's run only while the
    engine is built, before `initialize`: a check there is TRT215's), `initialize`, `clone`
    and its constructors, and a creator's `createPlugin` / `deserializePlugin`. What ends the process:
    `exit`, `abort`, `std::terminate`, `quick_exit`, and macros and functions listed with behaviour `exit`
    in the rules/ packs (`PLUGIN_ASSERT`, `PLUGIN_FAIL`, `PLUGIN_CHECK` of TensorRT OSS; `assert`, at warning
    severity, since builds with `NDEBUG` drop it: where the program is built with `NDEBUG`, a release
    `CMAKE_BUILD_TYPE` set in its CMake files or `-DNDEBUG`, the finding says the assert is compiled out and the
    failure it checks is silently ignored), or a project macro that expands to one of them. A runtime
    status is what the check tests: the result of a CUDA / cuBLAS / cuDNN / NCCL call
    (`CHECK(cudaMalloc(...))`), a status compared with its success value (`status == cudaSuccess`,
    `st == STATUS_SUCCESS`), one call or status variable handed to a check macro that is not an assert
    (`PLUGIN_CHECK(status)`), a check macro without arguments whose body tests a status (`cudaCheckError()`
    on `cudaGetLastError()`); and a plain `exit()` / `abort()` / `std::terminate()`, which tests nothing, except
    in the branch of a data-type dispatch for no accepted type (TensorRT hands the plugin only the types its
    `supportsFormatCombination` accepted: TRT215's) and in the `default:` of a switch whose cases name every
    enumerator of its enum (`switch (mTactic)` over the tactics the plugin advertises: only a value the plugin
    itself made invalid, an integer cast to the enum, reaches it; TRT215's too; from a creator's method, where the
    value may come from the model, it counts), and in the branch of a null test of the interface method's own
    pointer parameters that TensorRT never passes null (`if (inputs == nullptr || !outputs) exit(1);` in `enqueue`:
    `nonnull` in rules/tensorrt_interfaces.yaml; a test of its workspace, a member, or a helper's parameter counts);
    after a switch with no `default:` every case of which returns or
    throws (no `break` out of it), the code is that switch's default and is judged so. So is a check on a condition only the run decides: a device
    property (`PLUGIN_ASSERT(getSmVersion() >= 80)`), a shape at run time (`dims.d[i]`, a head size, a sequence
    length), a data type at run time (`inputDesc[0].type`, a field's `PluginFieldType` in `createPlugin`); and a
    failure that fires by itself (`assert(false)`, `PLUGIN_ASSERT(false && "unsupported")`, `PLUGIN_FAIL(...)`) on
    `enqueue`'s path outside that branch, the fall-through of a dispatch that any unhandled value reaches.
    The sites of one macro (a project's `CHECK`, TensorRT OSS's `PLUGIN_ASSERT`) in one plugin are one finding, at
    the first site, with the others as related locations and counted in the message.
    A check in a creator's `createPlugin` on a value it is handed (a field's `PluginFieldType`, a shape or data type
    read from a field, the default of a dispatch on one) is a runtime failure where data from outside the program can
    reach the creator: an ONNX node the tree emits or a model file holds resolves to it; the program parses models
    (a file of it names `NvOnnxParser.h`, `nvonnxparser`, `trt.OnnxParser`, the UFF or Caffe parser, onnx-tensorrt or
    trtexec); it hands plugin libraries to a tool that builds engines from models (`trtexec --plugins`,
    `--staticPlugins`; a program that only loads a library itself, `dlopen` or `ctypes.CDLL` to deserialize an
    engine, calls no `createPlugin`); or the creator is in a plugin library for others (its unit is not held by the tree's own executables alone: a library
    no executable of the tree links, a Makefile's product, no build description). Otherwise only the program's own
    routes (C++ and Python lookups with their fields) hand it fields: a check on a field's type that every such route
    passes with an accepted type, and any such check when no route reaches `createPlugin` at all, is an invariant,
    TRT215's (its finding says why). What cannot be read decides nothing: a route whose fields were not all
    followed, a field found by name, a check with `&&` or `!=` stay here.
    A shape check in `configurePlugin` that reads only dimensions other than the first, with constant indices
    (`assert(in[0].desc.dims.d[2] == in[1].desc.dims.d[2])`; not `d[0]`, `d[i]` or `nbDims`), is decided when the
    engine is built where every engine holding the plugin is built by its own program with optimization profiles
    that vary only the first dimension of each input (each input's kMIN, kOPT and kMAX give the same expression for
    every other dimension: `setDimensions(name, OptProfileSelector::kMIN, Dims4{1, d.d[1], d.d[2], d.d[3]})`, or
    Python's `set_shape`): TensorRT calls `configurePlugin` at build with those dimensions already fixed and rejects a
    run-time shape outside the profile, so the run sees the values the build checked. That one is TRT215's (its
    finding says why). It stays here when the program's profiles are not all read (a `Dims` variable written again,
    shape-tensor values, `min_shape=`, trtexec's `--minShapes`), when a profile varies another dimension or none is
    set, when the program loads libraries at run time or runs trtexec, when an ONNX node or model of the tree names
    the plugin (any tool may build that model), and when another runtime method reaches the check too. It assumes the
    network keeps the batch first (a reshape that moves the first input dimension into another one is not seen).
    In an IPluginV2DynamicExt's `configurePlugin`, a shape check that tests only ranks (`nbDims` against an integer)
    and dimensions with constant indices equal to an integer, joined by `&&` and `||`
    (`PLUGIN_ASSERT(in[1].desc.dims.nbDims == 3 || (in[1].desc.dims.nbDims == 4 && in[1].desc.dims.d[3] == 1))`), is
    TRT215's in every program: the builder calls that method first with the network's dimensions, -1 in place of each
    one only the run knows (`DynamicPluginTensorDesc` in NvInferRuntime.h), and a rank never changes, so the check
    fails while the engine is built or never. A bound (`d[2] <= 64`: -1 passes it at build), a negation, two
    dimensions compared, or a profile's `min`/`max` stay here.
    A check on a data type at run time in `enqueue`, `configurePlugin` or `onShapeChange`, in the method itself, that
    only compares the type of one input with a constant index (`inputDesc[0].type`, `in[0].desc.type`, or a local
    bound once to one: `auto type = inputDesc[0].type;`) with `DataType` constants joined by `||`, is TRT215's when
    those constants name every type the plugin's `supportsFormatCombination` accepts at that position
    (`PLUGIN_ASSERT(type == DataType::kHALF || type == DataType::kFLOAT)` where position 0 accepts kFLOAT or kHALF):
    TensorRT runs these methods only with a combination it accepted (its finding names `supportsFormatCombination`
    and its line). What it accepts is read only where its body says it exactly: `if (pos == k)` / `switch (pos)`
    returning tests of `inOut[pos].type` (or `.desc.type`, through a local reference) against `DataType` constants,
    joined with a test of the format, and "the type of position 0" (`inOut[pos].type == inOut[0].type`); a loop, an
    assignment, a helper deciding the type leave it unknown. `&&`, `!=`, an index that is not a constant, an output's
    type, a member holding a type, a check in a helper the method calls, an accepted type the check does not name,
    or a position whose accepted types are unknown keep it here.
    An exit in a workspace carver on a size exceeding what it was told is left (`if (size > workspace_size)
    exit(1);`, the parameter untouched before the test) is TRT215's when every hop from `enqueue` passes that size on
    unchanged as its plain parameter and `enqueue` passes the plugin's own `getWorkspaceSize(...)`: TensorRT hands
    `enqueue` at least that much, so only the plugin's size arithmetic can fail it (TRT204 judges a throw there the
    same way). A member, a literal or a computed size, or another runtime method reaching it, keeps it here.
    A failure in the fall-through of a dispatch on the plugin's own members (the last `else` of an if/else-if chain
    every condition of which reads only members, `mType`, `this->mX`, and constants: `if (mType == DataType::kHALF &&
    mBits == 4) ... else if (...) ... else { assert(false); }`) is TRT215's when the plugin already rejected every
    value the chain does not handle while it was constructed: every constructor holds, or calls a method of the plugin
    (an `init`) that holds, a chain on those members whose conditions are all among this chain's (compared as the C++
    frontend spells them: whitespace, `this->` and namespace qualifiers do not matter) and whose own `else` fails by
    itself (a `throw`, `exit`/`abort`, a check macro on `false` that throws or exits), after the last write of those
    members there; and no other function writes them (an assignment, `++`, its address taken, a non-const reference:
    one in `configurePlugin` or any other method keeps it here). Its finding names the constructor or method and the
    line of its chain. A construction chain that tests a value this one does not handle, or whose `else` does not
    fail, a constructor that neither checks nor calls a method that does, or no constructor seen, keep it here.
    Asserts of invariants (`PLUGIN_ASSERT(pos < 4)` in `supportsFormatCombination`, `assert(nbOutputs == 1)`,
    `PLUGIN_FAIL("unsupported type")` in a switch's `default:`), and status checks reached only from build-time
    or teardown methods, are TRT215 (invariant-assert-in-plugin, opt-in), one finding per plugin. A `try` block does not help here. Kernel launches are not followed (a
    device-side `assert` traps the kernel, it does not exit the process).

    ## Why it matters
    A plugin lives inside someone else's process: an inference server, a Python session. A runtime status
    fails for reasons outside the plugin (out of memory, a sticky CUDA error from another kernel, a lost
    device): a check that exits or aborts on it takes the whole process down, every other model and request
    with it, with no error status for TensorRT to report.

    ## Example
    ```cpp
    int32_t FooPlugin::enqueue(...) noexcept
    {
        cudaError_t status = cudaMemsetAsync(outputs[0], 0, bytes, stream);
        PLUGIN_ASSERT(status == cudaSuccess);   // aborts the server when the device fails
    ```

    ## Fix
    Report the failure through the method's status (return the error / `-1` from `enqueue`, `nullptr` from
    `createPlugin`; `PLUGIN_CHECK_CUDA` returns it), and log it with the plugin logger, instead of ending the
    process.
    """

    code = "TRT205"
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "lifecycle", "py_creators", "registrations",
                       "emissions", "route_tables", "route_calls", "lookups", "models", "includes", "plugin_specs"})
    name = "process-exit-in-plugin"
    family = "plugin"
    severity = Severity.ERROR

    VALID = [
        {"files": {"plugins/foo.cpp": exits_plugin(enqueue="        if (!inputs[0])\n        {\n            return -1;\n        }")}},
        # a check in configurePlugin on dimensions other than the first, where the program's only optimization
        # profile varies only the first dimension: decided at engine build, TRT215's
        {"files": profile_program(_DIMS_EQ)},
        # a data-type check in an IPluginV2IOExt's configurePlugin: the builder calls it before initialize, never
        # when an engine is deserialized (only IPluginV2DynamicExt's runs again when shapes change): TRT215's
        {"files": {"plugins/foo.cpp": configure_plugin("IPluginV2IOExt", _IN_TYPE)}},
        # a check on ranks and a dimension equal to a constant in an IPluginV2DynamicExt's configurePlugin: the
        # builder calls it first with -1 for every dimension the run decides, so it fails at build or never
        {"files": {"plugins/foo.cpp": configure_plugin("IPluginV2DynamicExt", _WILDCARD)}},
        # enqueue's own tensor arrays tested for null: TensorRT never passes them null, an argument precondition
        {"files": {"plugins/foo.cpp": exits_plugin(enqueue="        if (inputs == nullptr || !outputs)\n        {\n"
                                                           "            exit(1);\n        }")}},
        # an invariant TensorRT guarantees, asserted in a build-time query: TRT215's, not this rule's
        {"files": {"plugins/foo.cpp": exits_plugin(supports="        PLUGIN_ASSERT(pos >= 0 && pos < 2);", helpers=_ASSERT)}},
        # an invariant asserted on enqueue's path: nothing outside the plugin makes it fail
        {"files": {"plugins/foo.cpp": exits_plugin(enqueue="        checkRank(inputDesc[0].dims.nbDims);", helpers=_RANK)}},
        # the branch a plugin does not expect to reach (TensorRT only hands enqueue the types it accepted)
        {"files": {"plugins/foo.cpp": exits_plugin(
            enqueue="        switch (inputDesc[0].type)\n        {\n        case DataType::kFLOAT: break;\n"
                    "        default: PLUGIN_FAIL(\"unsupported type\");\n        }",
            helpers="#define PLUGIN_FAIL(msg) do { abort(); } while (0)")}},
        # named cases of a data-type switch that only fail (`case kBF16: case kINT64: PLUGIN_FAIL(...)`), in a helper
        # enqueue calls: the types the dispatch lists as unsupported, a branch for no accepted type as a default is
        {"files": {"plugins/foo.cpp": exits_plugin(
            enqueue="        launchFor(inputDesc[0].type);",
            helpers="#define PLUGIN_FAIL(msg) do { reportAssertion(msg, __FILE__, __LINE__); } while (0)\n"
                    "void reportAssertion(char const* msg, char const* file, int line);\n"
                    "int launchFor(DataType t)\n{\n    switch (t)\n    {\n    case DataType::kFLOAT: return 0;\n"
                    "    case DataType::kHALF: break;\n    case DataType::kBF16:\n"
                    "    case DataType::kINT64: PLUGIN_FAIL(\"Unsupported data type\");\n    default: break;\n    }\n"
                    "    return 0;\n}")}},
        # a direct exit in the default of a switch on the data type, inside a one-time guard: no accepted type reaches it
        {"files": {"plugins/foo.cpp": exits_plugin(
            enqueue="        if (!mTuned)\n        {\n            switch (inputDesc[0].type)\n            {\n"
                    "            case DataType::kFLOAT: break;\n            default: exit(1);\n            }\n"
                    "            mTuned = true;\n        }").replace("public:\n", "public:\n    bool mTuned{false};\n", 1)}},
        # the default of a switch whose cases name every enumerator of its enum (the tactics the plugin advertises,
        # an unscoped mode enum): only a value the plugin made invalid reaches it, an invariant (TRT215's)
        {"files": {"plugins/foo.cpp": exits_plugin(enqueue=_ENUM_SWITCH, helpers=_ENUMS)}},
        # an abort after a switch with no default whose every case returns: that switch's default, reached only by a
        # data type no case names or a value no enumerator of the plugin's own enum names (TRT215's)
        {"files": {"plugins/foo.cpp": exits_plugin(enqueue=_SIZES, helpers=after_switch("abort();"))}},
        # a CUDA status checked with an abort, but only in a build-time query
        {"files": {"plugins/foo.cpp": exits_plugin(
            supports="        int32_t device = 0;\n        CHECK(cudaGetDevice(&device));", helpers=_CHECK)}},
        # a field's type checked in createPlugin of a plugin library the program's own executable links, in a
        # program that parses no model: its only route (app/main.cpp) passes the field as kINT32, an invariant
        # (TRT215's)
        {"files": own_program(_FIELD_TYPE, _ASSERT)},
        # ... also where a script of the program loads the plugin library itself to deserialize an engine (it parses
        # no model: loading registers the creator, deserializing calls deserializePlugin, never createPlugin)
        {"files": own_program(_FIELD_TYPE, _ASSERT, extra=_LOADER)},
        # ... and a shape read from a field, where nothing calls createPlugin at all (no route, no model)
        {"files": own_program(_HEAD_SIZE, _ASSERT, route_type=None)},
        # a workspace carver's exit on more than is left of the size enqueue passes on from the plugin's own
        # getWorkspaceSize(...): a check of the plugin's own size arithmetic, TRT215's
        {"files": {"plugins/foo.cpp": own_request(exits=True)}},
    ]
    INVALID = [
        {
            # the same data-type check in an IPluginV2DynamicExt's configurePlugin, which runs whenever the input
            # shapes change: a value of the run's
            "files": {"plugins/foo.cpp": configure_plugin("IPluginV2DynamicExt", _IN_TYPE.replace("in[0]", "in[0].desc"))},
            "expect": [("plugins/foo.cpp", 12, "can end the process on a data type at run time (`in[0].desc.type == "
                                                "DataType::kFLOAT`) from FooPlugin::configurePlugin: "
                                                "FooPlugin::configurePlugin -> PLUGIN_ASSERT")],
        },
        {
            # a bound on a dimension there: -1 passes it at build, a run's value may not
            "files": {"plugins/foo.cpp": configure_plugin("IPluginV2DynamicExt",
                                                          "        PLUGIN_ASSERT(in[0].desc.dims.d[2] <= 64);")},
            "expect": [("plugins/foo.cpp", 12, "can end the process on a shape at run time (`in[0].desc.dims.d[2] <= "
                                                "64`) from FooPlugin::configurePlugin: FooPlugin::configurePlugin -> "
                                                "PLUGIN_ASSERT")],
        },
        {
            # two dimensions compared (both -1 at build), or a dimension's equality negated: the run decides
            "files": {"plugins/foo.cpp": configure_plugin("IPluginV2DynamicExt", (
                "        PLUGIN_ASSERT(in[0].desc.dims.d[2] == in[1].desc.dims.d[2]);\n"
                "        PLUGIN_ASSERT(!(in[0].desc.dims.d[1] == 4));"))},
            "expect": [("plugins/foo.cpp", 12, "can end the process on a shape at run time (`in[0].desc.dims.d[2] == "
                                                "in[1].desc.dims.d[2]`) from FooPlugin::configurePlugin: "
                                                "FooPlugin::configurePlugin -> PLUGIN_ASSERT; and at 1 more site of "
                                                "PLUGIN_ASSERT in FooPlugin")],
        },
        {
            # ... where enqueue passes a member instead: the run may hand the carver less than it carves
            "files": {"plugins/foo.cpp": own_request(size="mWorkspaceSize", exits=True)},
            "expect": [("plugins/foo.cpp", 10, "from FooPlugin::enqueue: FooPlugin::enqueue -> decode -> nextPtr -> exit")],
        },
        {
            # the same check, where the profile varies the input's height: the run decides it
            "files": profile_program(_DIMS_EQ, h_max="2 * dims.d[2]"),
            "expect": [(
                "plugins/foo.cpp", 12,
                "assert (aborts the process when the assertion fails (in builds without NDEBUG)) can end the process "
                "on a shape at run time (`in[0].desc.dims.d[2] == in[1].desc.dims.d[2]`) from FooPlugin::configurePlugin: "
                "FooPlugin::configurePlugin -> assert",
            )],
        },
        {
            # the profile fixes every dimension but the first, but the check reads the first (the batch)
            "files": profile_program("        assert(in[0].desc.dims.d[0] == in[1].desc.dims.d[0]);"),
            "expect": [(
                "plugins/foo.cpp", 12,
                "assert (aborts the process when the assertion fails (in builds without NDEBUG)) can end the process "
                "on a shape at run time (`in[0].desc.dims.d[0] == in[1].desc.dims.d[0]`) from FooPlugin::configurePlugin: "
                "FooPlugin::configurePlugin -> assert",
            )],
        },
        {
            # the profile fixes them, but the tree exports an ONNX node of the plugin: any tool may build that model
            "files": profile_program(_DIMS_EQ, extra=_EXPORT),
            "expect": [(
                "plugins/foo.cpp", 12,
                "assert (aborts the process when the assertion fails (in builds without NDEBUG)) can end the process "
                "on a shape at run time (`in[0].desc.dims.d[2] == in[1].desc.dims.d[2]`) from FooPlugin::configurePlugin: "
                "FooPlugin::configurePlugin -> assert",
            )],
        },
        {
            "files": {"plugins/foo.cpp": exits_plugin(
                enqueue="        void* scratch = nullptr;\n        cudaError_t status = cudaMalloc(&scratch, 16);\n"
                        "        PLUGIN_ASSERT(status == cudaSuccess);",
                helpers=_ASSERT)},
            "expect": [(
                "plugins/foo.cpp", 20,
                "PLUGIN_ASSERT (aborts the process when the assertion fails (reportAssertion)) can end the process "
                "on a status (compared with cudaSuccess) from FooPlugin::enqueue: FooPlugin::enqueue -> PLUGIN_ASSERT",
            )],
        },
        {
            "files": {"plugins/foo.cpp": exits_plugin(
                create="        static float const kScale[4] = {1.F, 1.F, 1.F, 1.F};\n        void* scale = nullptr;\n"
                       "        CHECK(cudaMemcpy(scale, kScale, sizeof(kScale), cudaMemcpyHostToDevice));",
                helpers=_CHECK)},
            "expect": [(
                "plugins/foo.cpp", 31,
                "exit (ends the process) (expanded from macro CHECK) can end the process on the status cudaMemcpy "
                "returns from FooPluginCreator::createPlugin",
            )],
        },
        {
            "files": {"plugins/foo.cpp": exits_plugin(enqueue="        if (!inputs[0])\n        {\n            exit(1);\n        }")},
            "expect": [("plugins/foo.cpp", 20, "exit (ends the process) can end the process by a direct call (it tests nothing itself) from FooPlugin::enqueue")],
        },
        {
            # a project macro no pack names (TensorRT OSS checkCudaErrors): the exit it expands to, at its use
            "files": {"plugins/foo.cpp": exits_plugin(
                enqueue="        checkCudaErrors(cudaGetLastError());",
                helpers="#define checkCudaErrors(e) do { if ((e) != cudaSuccess) { exit(1); } } while (0)")},
            "expect": [("plugins/foo.cpp", 18, "exit (ends the process) (expanded from macro checkCudaErrors) can end the process")],
        },
        {
            # a check macro without arguments whose body tests the last CUDA error: a runtime status
            "files": {"plugins/foo.cpp": exits_plugin(
                enqueue="        cudaCheckError();",
                helpers="#define cudaCheckError() { cudaError_t e = cudaGetLastError(); if (e != cudaSuccess) { exit(1); } }")},
            "expect": [("plugins/foo.cpp", 18, "exit (ends the process) (expanded from macro cudaCheckError) can end the "
                        "process on the status cudaGetLastError returns (tested in the body of cudaCheckError) from "
                        "FooPlugin::enqueue")],
        },
    ]

    INVALID += [
        {
            # the project's own definition of a macro the packs say throws (TensorRT Edge-LLM's CUDA_CHECK) ends the
            # process: judged by what it expands to, and the message names the definition
            "files": {
                "common/macros.h": (
                    "#pragma once\n#include <cassert>\n#include <cuda_runtime.h>\n"
                    "#define CUDA_CHECK(call) do { if ((call) != cudaSuccess) { assert(0); } } while (0)\n"),
                "plugins/foo.cpp": plugin_cpp("    CUDA_CHECK(cudaMemsetAsync(outputs[0], 0, 16, stream));",
                                              '#include "../common/macros.h"'),
            },
            "expect": [("plugins/foo.cpp", 15, "(expanded from macro CUDA_CHECK as defined at common/macros.h:4, where it "
                                               "ends the process (a CUDA_CHECK elsewhere usually throws))")],
        },
    ]

    INVALID += [
        # after a switch with no default, a case that breaks out (in an `if` too) reaches the abort after it
        {
            "files": {"plugins/foo.cpp": exits_plugin(
                enqueue=_SIZES, helpers=after_switch("abort();", "if (gFast)\n        {\n            break;\n        }\n        return 2;"))},
            "expect": [("plugins/foo.cpp", 37, "abort (aborts the process) can end the process by a direct call (it tests "
                                               "nothing itself) from FooPlugin::enqueue: FooPlugin::enqueue -> tile -> abort")],
        },
        # a switch on an enum whose cases leave an enumerator out: the default is reached by a valid value
        {
            "files": {"plugins/foo.cpp": exits_plugin(enqueue=_ENUM_SWITCH.replace("        case kWide: break;\n", ""),
                                                      helpers=_ENUMS)},
            "expect": [("plugins/foo.cpp", 35, "assert (aborts the process when the assertion fails (in builds without "
                                               "NDEBUG)) can end the process unconditionally, on a value nothing before "
                                               "it handles (the fall-through of a dispatch) from FooPlugin::enqueue")],
        },
    ]

    # a data-type dispatch whose last `else` only asserts and returns the status variable (still its initial
    # failure value): that branch is for no accepted type and does not run, so its assert is no runtime site
    _DISPATCH = ("        int status = -1;\n"
                 "        if (inputDesc[0].type == DataType::kHALF)\n        {\n            status = launchHalf(stream);\n"
                 "            assert(status == 0);\n            return status;\n        }\n"
                 "        else if (inputDesc[0].type == DataType::kFLOAT)\n        {\n"
                 "            status = launchFloat(stream);\n            assert(status == 0);\n            return status;\n"
                 "        }\n        else\n        {\n            assert(status == 0);\n            return status;\n        }")
    INVALID += [
        {
            "files": {"plugins/foo.cpp": exits_plugin(enqueue=_DISPATCH, helpers="#include <cassert>\n"
                                                      "int launchHalf(cudaStream_t s);\nint launchFloat(cudaStream_t s);")},
            "expect": [("plugins/foo.cpp", 24, "can end the process on the status in `status` from FooPlugin::enqueue: "
                                               "FooPlugin::enqueue -> assert; and at 1 more site of assert in FooPlugin")],
        },
    ]

    INVALID += [
        # checks on conditions only the run decides are runtime failures, not invariants: the GPU it runs on ...
        {
            "files": {"plugins/foo.cpp": exits_plugin(enqueue="        PLUGIN_ASSERT(getSmVersion() >= 80);", helpers=_SM)},
            "expect": [("plugins/foo.cpp", 22, "can end the process on a device property (`getSmVersion() >= 80`) from "
                                               "FooPlugin::enqueue")],
        },
        # ... a shape the model gives (a head size read from a field) ...
        {
            "files": {"plugins/foo.cpp": exits_plugin(
                create="        int32_t headSize = *static_cast<int32_t const*>(fc->fields[0].data);\n"
                       "        PLUGIN_ASSERT(headSize == 64 || headSize == 128);", helpers=_ASSERT)},
            "expect": [("plugins/foo.cpp", 30, "can end the process on a shape at run time (`headSize == 64 || headSize == "
                                               "128`) from FooPluginCreator::createPlugin")],
        },
        # ... the type of a field the model passes ...
        {
            "files": {"plugins/foo.cpp": exits_plugin(
                create="        PLUGIN_ASSERT(fc->fields[0].type == PluginFieldType::kINT32);", helpers=_ASSERT)},
            "expect": [("plugins/foo.cpp", 29, "can end the process on a data type at run time (`fc->fields[0].type == "
                                               "PluginFieldType::kINT32`) from FooPluginCreator::createPlugin")],
        },
        # ... in a plugin library the program's own executable links, when its route passes another type, ...
        {
            "files": own_program(_FIELD_TYPE, _ASSERT, route_type="kFLOAT32"),
            "expect": [("plugins/foo.cpp", 29, "can end the process on a data type at run time")],
        },
        # ... when the program parses models (a parser hands a model's attributes to the creator) ...
        {
            "files": own_program(_FIELD_TYPE, _ASSERT, extra=_PARSER),
            "expect": [("plugins/foo.cpp", 29, "can end the process on a data type at run time")],
        },
        # ... when an ONNX node the tree emits resolves to the creator ...
        {
            "files": own_program(_HEAD_SIZE, _ASSERT, route_type=None, extra=_EXPORT),
            "expect": [("plugins/foo.cpp", 30, "can end the process on a shape at run time")],
        },
        # ... when a script hands the library to trtexec, which builds engines from models ...
        {
            "files": own_program(_FIELD_TYPE, _ASSERT, extra=_TRTEXEC),
            "expect": [("plugins/foo.cpp", 29, "can end the process on a data type at run time")],
        },
        # ... and when the library is built for others to load (no executable of the tree links it)
        {
            "files": own_program(_HEAD_SIZE, _ASSERT, route_type=None, linked=False),
            "expect": [("plugins/foo.cpp", 30, "can end the process on a shape at run time")],
        },
        # a project's check macro (named CUDA_CHECK, which the packs say throws) expands to a helper defined in another
        # file that calls exit: the exit is the site (and no throw, TRT204's, is claimed)
        {
            "files": fail_helper_files(),
            "expect": [("common/check.cpp", 7, "exit (ends the process) can end the process by a direct call (it tests "
                                               "nothing itself) from FooPlugin::enqueue: FooPlugin::enqueue -> cudaFail -> exit")],
        },
        # a program whose CMake sets a release build type (CMake compiles it with -DNDEBUG): the assert is compiled
        # out, and the failed status it checks is silently ignored (the message says so; not "ends the process")
        {
            "files": {
                "CMakeLists.txt": "project(foo)\nset(CMAKE_BUILD_TYPE Release)\nadd_library(foo SHARED plugins/foo.cpp)\n",
                "plugins/foo.cpp": exits_plugin(
                    enqueue="        cudaError_t status = cudaMemsetAsync(outputs[0], 0, 16, stream);\n"
                            "        assert(status == cudaSuccess);",
                    helpers="#include <cassert>"),
            },
            "expect": [("plugins/foo.cpp", 19, "assert is compiled out in this program (it is built with NDEBUG: a release "
                                               "build type or -DNDEBUG), so its check on a status (compared with "
                                               "cudaSuccess) from FooPlugin::enqueue does nothing and a failure is "
                                               "silently ignored")],
        },
        # one macro at three sites of one plugin: one finding, at the first, the others related and counted
        {
            "files": {"plugins/foo.cpp": exits_plugin(
                enqueue="        CHECK(cudaMemsetAsync(outputs[0], 0, 16, stream));\n"
                        "        CHECK(cudaMemsetAsync(outputs[1], 0, 16, stream));\n"
                        "        CHECK(cudaStreamSynchronize(stream));", helpers=_CHECK)},
            "expect": [("plugins/foo.cpp", 18, "can end the process on the status cudaMemsetAsync returns from "
                                               "FooPlugin::enqueue: FooPlugin::enqueue -> exit; and at 2 more sites of "
                                               "CHECK in FooPlugin (the related locations)", "FooPlugin:CHECK:sites")],
        },
        # ... and an assert(false) in the fall-through of a dispatch on enqueue's path (no `else`, no `default:` on a
        # DataType: any value the branches above do not handle reaches it)
        {
            "files": {"plugins/foo.cpp": exits_plugin(
                enqueue="        if (inputDesc[0].type == DataType::kFLOAT)\n        {\n            return 0;\n        }\n"
                        "        if (inputDesc[0].type == DataType::kHALF)\n        {\n            return 0;\n        }\n"
                        "        PLUGIN_ASSERT(false && \"unsupported type\");", helpers=_ASSERT)},
            "expect": [("plugins/foo.cpp", 26, "can end the process unconditionally, on a value nothing before it handles "
                                               "(the fall-through of a dispatch) from FooPlugin::enqueue")],
        },
        # a message-only exit macro in the branch of a status test: the test decides, not a dispatch's fall-through
        {
            "files": {"plugins/foo.cpp": exits_plugin(
                enqueue="        cudaError_t err = cudaGetLastError();\n        if (err != cudaSuccess)\n"
                        "            DIE(\"launch failed: \" + std::to_string(err));",
                helpers="#include <cstdlib>\n#include <string>\n#define DIE(msg) { (void)(msg); exit(EXIT_FAILURE); }")},
            "expect": [("plugins/foo.cpp", 22, "(expanded from macro DIE) can end the process on a status (compared with "
                                              "cudaSuccess) from FooPlugin::enqueue")],
        },
    ]

    # the fall-through of a dispatch on the plugin's own members, which every constructor already rejected (init)
    VALID += [
        {"files": {"plugins/foo.cpp": constructed_dispatch()}},
        # a check macro on false that throws through a project function, in init's else
        {"files": {"plugins/foo.cpp": constructed_dispatch(
            init_fail="FOO_CHECK(false);").replace(
            "using namespace nvinfer1;\n",
            "using namespace nvinfer1;\n[[noreturn]] void fooFail(char const* what) { throw std::runtime_error(what); }\n"
            "#define FOO_CHECK(x) do { if (!(x)) { fooFail(#x); } } while (0)\n", 1)}},
    ]
    INVALID += [
        # mType is also written in configurePlugin: a value init never checked may reach enqueue
        {
            "files": {"plugins/foo.cpp": constructed_dispatch(configure="        mType = in[0].desc.type;")},
            "expect": [("plugins/foo.cpp", 46, "the fall-through of a dispatch) from FooPlugin::enqueue")],
        },
        # init's own else does not fail: any value stays
        {
            "files": {"plugins/foo.cpp": constructed_dispatch(init_fail="mScale = 0;")},
            "expect": [("plugins/foo.cpp", 46, "the fall-through of a dispatch) from FooPlugin::enqueue")],
        },
        # enqueue tests mBits == 8 where init does not: init accepts (kHALF, 2), which enqueue does not handle
        {
            "files": {"plugins/foo.cpp": constructed_dispatch(init_second="mType == DataType::kHALF")},
            "expect": [("plugins/foo.cpp", 46, "the fall-through of a dispatch) from FooPlugin::enqueue")],
        },
        # init accepts kFLOAT, which enqueue does not handle
        {
            "files": {"plugins/foo.cpp": constructed_dispatch(init_second="mType == DataType::kFLOAT")},
            "expect": [("plugins/foo.cpp", 46, "the fall-through of a dispatch) from FooPlugin::enqueue")],
        },
    ]

    # checks on the data type of an input in enqueue against what supportsFormatCombination accepts there (kFLOAT or
    # kHALF at position 0, the same as position 0 at position 3)
    VALID += [
        # every accepted type named: TensorRT runs enqueue only with an accepted combination, an invariant (TRT215's)
        {"files": {"plugins/foo.cpp": accepted_type_plugin(
            "        PLUGIN_ASSERT(type == DataType::kHALF || type == DataType::kFLOAT);")}},
        {"files": {"plugins/foo.cpp": accepted_type_plugin(
            "        PLUGIN_ASSERT((inputDesc[3].type == DataType::kFLOAT) || DataType::kHALF == inputDesc[3].type);")}},
    ]
    INVALID += [
        # an accepted type the check does not name (kFLOAT): a type TensorRT may hand enqueue fails it
        {
            "files": {"plugins/foo.cpp": accepted_type_plugin("        PLUGIN_ASSERT(type == DataType::kHALF);")},
            "expect": [("plugins/foo.cpp", 32, "can end the process on a data type at run time (`type == DataType::kHALF`) "
                                               "from FooPlugin::enqueue")],
        },
        # `&&` with another test: not a check of one position against what it accepts
        {
            "files": {"plugins/foo.cpp": accepted_type_plugin(
                "        PLUGIN_ASSERT((type == DataType::kHALF || type == DataType::kFLOAT) && inputs[1] != inputs[0]);")},
            "expect": [("plugins/foo.cpp", 32, "can end the process on a data type at run time")],
        },
        # a supportsFormatCombination that cannot be read exactly (a loop): what it accepts is unknown, nothing changes
        {
            "files": {"plugins/foo.cpp": accepted_type_plugin(
                "        PLUGIN_ASSERT(type == DataType::kHALF || type == DataType::kFLOAT);",
                supports="        for (int32_t i = 0; i < nbInputs; ++i)\n        {\n        }\n" + ACCEPTS_FLOAT_HALF)},
            "expect": [("plugins/foo.cpp", 35, "can end the process on a data type at run time")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        # the sites of one macro in one plugin are one finding (a maintainer changes the macro, or each use, once):
        # at the first site, the others related and counted
        by_macro: dict[tuple[str, str], list] = {}
        for site in exit_sites(index):
            if not site.reported_by_trt205:
                continue
            esc = site.esc
            macro = esc.in_macro or (esc.call.callee if esc.call.kind == "macro" else None)
            if macro is None:
                yield self._finding(site)
            else:
                by_macro.setdefault((esc.entry.plugin, macro), []).append(site)
        for (plugin, macro), sites in by_macro.items():
            sites.sort(key=lambda x: (x.esc.call.span.path, x.esc.call.span.line, x.esc.call.span.col))
            yield self._finding(sites[0], sites[1:], plugin, macro.split(" ")[0])

    def _finding(self, site, more=(), plugin: str = "", macro: str = "") -> Diagnostic:
        esc = site.esc
        call = esc.call
        method = f"{esc.entry.plugin}::{esc.entry.fn.name}"
        sevs = [Severity(x.esc.behaviour.severity) for x in (site, *more)
                if x.esc.behaviour is not None and x.esc.behaviour.severity]
        sev = max(sevs, key=lambda x: x.rank) if len(sevs) == 1 + len(more) else None
        via = f" (expanded from macro {esc.in_macro})" if esc.in_macro else ""
        also = (f"; and at {len(more)} more site{'s' if len(more) != 1 else ''} of {macro} in {plugin} (the related "
                "locations)") if more else ""
        if call.compiled_out:
            # the program is built with NDEBUG: the check does not run, and what it checks is silently ignored
            head = (f"{call.callee} is compiled out in this program (it is built with NDEBUG: a release build type or "
                    f"-DNDEBUG), so its check {site.status} from {method} does nothing and a failure is silently "
                    f"ignored")
        else:
            head = f"{call.callee} ({esc.behaviour.what}){via} can end the process {site.status} from {method}"
        return self.diag(
            call.span,
            f"{head}: {chain_text(esc, call.callee)}{also}",
            related=[Related(esc.entry.fn.span, f"{method} is defined here")]
            + [Related(f.span, f"via {short(f)}") for f in esc.chain[1:]]
            + [Related(x.esc.call.span, (f"{macro} is compiled out here too: its check {x.status} from "
                                         f"{x.esc.entry.plugin}::{x.esc.entry.fn.name} does nothing")
                       if x.esc.call.compiled_out else
                       f"{macro} can end the process {x.status} from {x.esc.entry.plugin}::{x.esc.entry.fn.name}")
               for x in more],
            symbol=f"{plugin}:{macro}:sites" if more else f"{esc.entry.plugin}:{call.callee}:{short(esc.chain[-1])}",
            severity=sev,
        )
