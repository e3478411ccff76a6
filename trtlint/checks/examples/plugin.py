"""Example building blocks for the interface and lifecycle rules (TRT2xx): a plugin class, a
getCapabilityInterface, V3 and V2 serializing plugins."""

from __future__ import annotations

from typing import Optional

from .hotpath import plugin_cpp

V3_BASES = "public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime"


def plugin_class(body: str, bases: str = V3_BASES, name: str = "FooPlugin") -> str:
    """A plugin class whose members are ``body`` (written from line 8 on)."""
    return f"""#include <NvInferRuntime.h>
#include <string>
#include <vector>
using namespace nvinfer1;
class {name} : {bases}
{{
public:
{body}
}};
"""


def capability_interface(branches: str) -> str:
    """A getCapabilityInterface whose body is ``branches`` (``CAPABILITY_IF`` lines, ``CAPABILITY_DEFAULT``)."""
    return (
        "    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override\n"
        "    {\n" + branches + "    }"
    )


CAPABILITY_IF = "        if (type == PluginCapabilityType::{cap})\n        {{\n            return static_cast<{iface}*>(this);\n        }}\n"
CAPABILITY_DEFAULT = "        return static_cast<IPluginV3OneCore*>(this);\n"


def serialization_v3(serialized: str, reads: str, declared: str = '"alpha", "beta"', build_reads: str = "") -> str:
    """A V3 plugin and its creator in one file; the plugin serializes ``serialized``, createPlugin reads
    ``reads`` and getFieldNames declares ``declared`` (all kFLOAT32)."""
    ser = "\n".join(f'        mData.emplace_back("{n}", &mAlpha, PluginFieldType::kFLOAT32, 1);' for n in serialized.split())
    rd = "\n".join(
        f'            if (!strcmp(fc->fields[i].name, "{n}")) {{ alpha = *static_cast<float const*>(fc->fields[i].data); }}'
        for n in reads.split()
    )
    decl = "\n".join(
        f"        mFields.emplace_back(PluginField({n}, nullptr, PluginFieldType::kFLOAT32, 1));"
        for n in declared.split(", ")
    )
    build = "".join(
        "        if (phase == TensorRTPhase::kBUILD)\n        {\n"
        "            for (int32_t i = 0; i < fc->nbFields; ++i)\n            {\n"
        f'                if (!strcmp(fc->fields[i].name, "{n}")) {{ alpha += 0.F; }}\n'
        "            }\n        }\n"
        for n in build_reads.split()
    )
    return f"""#include <NvInferRuntime.h>
#include <cstring>
#include <vector>
using namespace nvinfer1;
class FooPlugin : public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime
{{
public:
    explicit FooPlugin(float alpha) : mAlpha(alpha) {{}}
    char const* getPluginName() const noexcept override {{ return "FooPlugin"; }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {{
        mData.clear();
{ser}
        mFC.nbFields = static_cast<int32_t>(mData.size());
        mFC.fields = mData.data();
        return &mFC;
    }}
    float mAlpha{{}};
    std::vector<PluginField> mData;
    PluginFieldCollection mFC{{}};
}};
class FooCreator : public IPluginCreatorV3One
{{
public:
    FooCreator()
    {{
{decl}
        mFC.nbFields = static_cast<int32_t>(mFields.size());
        mFC.fields = mFields.data();
    }}
    char const* getPluginName() const noexcept override {{ return "FooPlugin"; }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
    PluginFieldCollection const* getFieldNames() noexcept override {{ return &mFC; }}
    IPluginV3* createPlugin(char const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept override
    {{
        float alpha = 0.F;
        for (int32_t i = 0; i < fc->nbFields; ++i)
        {{
{rd}
        }}
{build}        return new FooPlugin(alpha);
    }}
    std::vector<PluginField> mFields;
    PluginFieldCollection mFC{{}};
}};
REGISTER_TENSORRT_PLUGIN(FooCreator);
"""


def _statements(code: str) -> str:
    """``a; if (c) { b; }`` as indented lines ``a;`` / ``if (c) { b;`` / ``}``."""
    out = []
    for stmt in code.split(";"):
        stmt = stmt.strip()
        if stmt:
            out.append(f"    {stmt}" + ("" if stmt.endswith("}") else ";"))
    return "\n".join(out)


def serialization_v2(writes: str, reads: str) -> str:
    """A V2 plugin (TensorRT OSS style) whose serialize() writes ``writes`` and whose deserializing
    constructor reads ``reads`` (statements separated by ``;``, written one per line, each ending in ``;``
    unless it closes a block)."""
    w, r = _statements(writes), _statements(reads)
    return f"""#include <NvInferRuntime.h>
#include <cstring>
using namespace nvinfer1;
template <typename T>
void write(char*& buffer, T const& val)
{{
    std::memcpy(buffer, &val, sizeof(T));
    buffer += sizeof(T);
}}
template <typename T>
T read(char const*& buffer)
{{
    T val{{}};
    std::memcpy(&val, buffer, sizeof(T));
    buffer += sizeof(T);
    return val;
}}
class BarPlugin : public IPluginV2DynamicExt
{{
public:
    BarPlugin(void const* data, size_t length);
    void serialize(void* buffer) const noexcept override;
    int32_t mAxis{{}};
    float mScale{{}};
    bool mFlag{{}};
}};
BarPlugin::BarPlugin(void const* data, size_t length)
{{
    char const* d = static_cast<char const*>(data);
{r}
}}
void BarPlugin::serialize(void* buffer) const noexcept
{{
    char* d = static_cast<char*>(buffer);
{w}
}}
"""


def serialization_v2_tagged(writes: str, reads: str, deserialize: str) -> str:
    """A V2 plugin template (FasterTransformer style) whose serialize() writes a type tag first, then
    ``writes`` (``serialize_value(&buffer, x)`` each), whose deserializing constructor reads ``reads``
    (``deserialize_value(&data, &length, &x)`` each), and whose creator's ``deserializePlugin`` body is
    ``deserialize`` (statements separated by ``;``): it reads the tag and makes ``BazPlugin<float>`` or
    ``BazPlugin<half>`` from the blob (parameter ``serialData``)."""
    w = _statements(";".join(f"serialize_value(&buffer, {x.strip()})" for x in writes.split(",")))
    r = _statements(";".join(f"deserialize_value(&data, &length, &{x.strip()})" for x in reads.split(",")))
    c = _statements(deserialize)
    return f"""#include <NvInferRuntime.h>
#include <cstring>
#include <type_traits>
using namespace nvinfer1;
struct half
{{
    unsigned short x;
}};
template <typename T>
void serialize_value(void** buffer, T const& value)
{{
    std::memcpy(*buffer, &value, sizeof(T));
    *buffer = static_cast<char*>(*buffer) + sizeof(T);
}}
template <typename T>
void deserialize_value(void const** buffer, size_t* length, T* value)
{{
    std::memcpy(value, *buffer, sizeof(T));
    *buffer = static_cast<char const*>(*buffer) + sizeof(T);
    *length -= sizeof(T);
}}
template <typename T>
class BazPlugin : public IPluginV2DynamicExt
{{
public:
    BazPlugin(char const* name, void const* data, size_t length);
    void serialize(void* buffer) const noexcept override;
    int mAxis{{}};
    float mScale{{}};
    int mCount{{}};
}};
template <typename T>
BazPlugin<T>::BazPlugin(char const* name, void const* data, size_t length)
{{
{r}
}}
template <typename T>
void BazPlugin<T>::serialize(void* buffer) const noexcept
{{
    int typeId = std::is_same<T, half>::value ? 1 : 0;
{w}
}}
class BazCreator : public IPluginCreator
{{
public:
    IPluginV2* deserializePlugin(char const* name, void const* serialData, size_t serialLength) noexcept override;
}};
IPluginV2* BazCreator::deserializePlugin(char const* name, void const* serialData, size_t serialLength) noexcept
{{
    int typeId;
{c}
}}
"""


# the creator reads the type tag itself and hands the constructor the blob past it, in the two spellings
# FasterTransformer uses: deserialize_value advances the pointer one item; memcpy does not, and the pointer
# passed is advanced by sizeof(int)
TAG_BY_READ = ("size_t tagLength = sizeof(int); deserialize_value(&serialData, &tagLength, &typeId); "
               "if (typeId == 0) return new BazPlugin<float>(name, serialData, serialLength); "
               "return new BazPlugin<half>(name, serialData, serialLength)")
TAG_BY_COPY = ("std::memcpy(&typeId, serialData, sizeof(int)); "
               "char const* modelData = static_cast<char const*>(serialData) + sizeof(int); "
               "if (typeId == 0) return new BazPlugin<float>(name, modelData, serialLength); "
               "return new BazPlugin<half>(name, modelData, serialLength)")


def exits_plugin(enqueue: str = "", supports: str = "", create: str = "", helpers: str = "") -> str:
    """A V3 plugin and its creator in one file, for the process-exit rules (TRT205, TRT215): ``helpers`` (macros,
    functions) from line 5 on, then the bodies of supportsFormatCombination, enqueue and the creator's
    createPlugin before their own return statements."""
    return f"""#include <NvInferRuntime.h>
#include <cuda_runtime.h>
#include <cstdlib>
using namespace nvinfer1;
{helpers}
class FooPlugin : public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime
{{
public:
    bool supportsFormatCombination(int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override
    {{
{supports}
        return true;
    }}
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {{
{enqueue}
        return 0;
    }}
}};
class FooPluginCreator : public IPluginCreatorV3One
{{
public:
    char const* getPluginName() const noexcept override {{ return "FooPlugin"; }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
    IPluginV3* createPlugin(char const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept override
    {{
{create}
        return new FooPlugin();
    }}
}};
REGISTER_TENSORRT_PLUGIN(FooPluginCreator);
"""


def fail_helper_files() -> dict:
    """A project whose check macro (named ``CUDA_CHECK``, which the packs say throws) expands to a helper defined in
    another file, ``cudaFail`` (``common/check.cpp``, its ``std::exit(1)`` on line 7), used once in a V3 plugin's
    enqueue (``plugins/foo.cpp`` line 15)."""
    return {
        "common/check.h": ("#pragma once\n#include <cuda_runtime.h>\nvoid cudaFail(cudaError_t e, char const* file, int line);\n"
                           "#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { "
                           "cudaFail(e_, __FILE__, __LINE__); } } while (0)\n"),
        "common/check.cpp": ("#include \"check.h\"\n#include <cstdio>\n#include <cstdlib>\n"
                             "void cudaFail(cudaError_t e, char const* file, int line)\n{\n"
                             "    std::fprintf(stderr, \"%s:%d: %d\\n\", file, line, static_cast<int>(e));\n"
                             "    std::exit(1);\n}\n"),
        "plugins/foo.cpp": plugin_cpp("    CUDA_CHECK(cudaMemsetAsync(outputs[0], 0, 16, stream));",
                                      '#include "../common/check.h"'),
    }


def after_switch(fail: str, smart: str = "return 2;") -> str:
    """Helpers for the throw and exit rules (TRT204, TRT205, TRT215), after ``using namespace nvinfer1``:
    ``elementSize`` switches on a DataType, ``tile`` on the plugin's own enum ``Tactic`` naming both its enumerators;
    neither switch has a ``default:`` and every case returns, so ``fail`` (a throw, an ``abort()``) after each is
    reached only by a value no case names, as a default would be. ``smart``: the statements of tile's kSmart case.
    Line 1 of the helpers is the ``#include``; the fail after elementSize is line 17, the one after tile line 29."""
    return f"""#include <stdexcept>
enum class Tactic : int32_t
{{
    kNaive = 1,
    kSmart = 2,
}};
static Tactic gTactic = Tactic(1);
static bool gFast = false;
static unsigned elementSize(DataType t)
{{
    switch (t)
    {{
    case DataType::kFLOAT: return 4;
    case DataType::kHALF:
    case DataType::kBF16: return 2;
    }}
    {fail}
}}
static int tile(Tactic t)
{{
    switch (t)
    {{
    case Tactic::kNaive: return 1;
    case Tactic::kSmart:
    {{
        {smart}
    }}
    }}
    {fail}
}}"""


_APP_CPP = """#include <NvInferRuntime.h>
#include <vector>
using namespace nvinfer1;
IPluginV3* makeFoo(int32_t n)
{
    auto* creator = static_cast<IPluginCreatorV3One*>(getPluginRegistry()->getCreator("FooPlugin", "1", ""));
    std::vector<PluginField> fields;
    fields.emplace_back(PluginField("n", &n, PluginFieldType::%s, 1));
    PluginFieldCollection fc{static_cast<int32_t>(fields.size()), fields.data()};
    return creator->createPlugin("foo", &fc, TensorRTPhase::kBUILD);
}
int main()
{
    return makeFoo(4) != nullptr ? 0 : 1;
}
"""


def own_program(create: str, helpers: str = "", route_type: Optional[str] = "kINT32", linked: bool = True,
                extra: Optional[dict] = None) -> dict:
    """A CMake program whose plugin library (``plugins/foo.cpp``, :func:`exits_plugin` with ``create`` in the
    creator's createPlugin) its own executable links (``linked``; else the library is built for others), and
    whose ``app/main.cpp`` looks the creator up and hands it one field ``n`` of ``route_type`` (None: the app
    builds no plugin, so no route reaches the creator); ``extra`` files added (a model parser, an export script)."""
    cmake = "project(foo)\nadd_library(fooplugin SHARED plugins/foo.cpp)\n"
    if linked:
        cmake += "add_executable(app app/main.cpp)\ntarget_link_libraries(app fooplugin)\n"
    app = _APP_CPP % route_type if route_type else "int main()\n{\n    return 0;\n}\n"
    return {"CMakeLists.txt": cmake, "plugins/foo.cpp": exits_plugin(create=create, helpers=helpers),
            "app/main.cpp": app, **(extra or {})}


_OLD_CREATOR = """class BarCreator : public IPluginCreator
{
public:
    char const* getPluginName() const noexcept override { return "BarPlugin"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    IPluginV2* createPlugin(char const* name, PluginFieldCollection const* fc) noexcept override
    {
        return new BarPlugin(nullptr, 0);
    }
    IPluginV2* deserializePlugin(char const* name, void const* data, size_t length) noexcept override
    {
        return new BarPlugin(data, length);
    }
};
REGISTER_TENSORRT_PLUGIN(BarCreator);
"""

_OLD_NETWORK = """#include <NvInfer.h>
using namespace nvinfer1;
class BarPlugin;
void addBar(INetworkDefinition* network, ITensor* input)
{
#if NV_TENSORRT_MAJOR < 6
    IPlugin* plugin = new BarPlugin(nullptr, 0);
    network->addPlugin(&input, 1, *plugin);
#else
    IPluginCreator* creator = getPluginRegistry()->getPluginCreator("LReLU_TRT", "1");
    (void) creator;
    network->addActivation(*input, ActivationType::kLEAKY_RELU);
#endif
}
"""


def old_release_program(plugin: str, condition: str = "NV_TENSORRT_MAJOR < 6", target: str = "8.6",
                        live: bool = False, extra: Optional[dict] = None) -> dict:
    """A CMake program targeting TensorRT ``target`` whose network code creates the plugin of ``plugin`` (a
    ``BarPlugin`` source: :func:`serialization_v2`; a creator that makes it is added) only under ``#if
    {condition}`` (and, with ``live``, in code every release compiles too); ``extra`` files added."""
    network = _OLD_NETWORK.replace("NV_TENSORRT_MAJOR < 6", condition)
    if live:  # a helper beside the plugin makes it in code every release compiles
        plugin += "IPluginV2* makeBar()\n{\n    return new BarPlugin(nullptr, 0);\n}\n"
    cmake = (f"cmake_minimum_required(VERSION 3.18)\nproject(app LANGUAGES CXX)\nfind_package(TensorRT {target} REQUIRED)\n"
             "add_executable(app src/network.cpp plugins/bar.cpp)\n")
    return {"CMakeLists.txt": cmake, "plugins/bar.cpp": plugin + _OLD_CREATOR, "src/network.cpp": network,
            **(extra or {})}


_PROFILE_PLUGIN = """#include <NvInferRuntime.h>
#include <cassert>
using namespace nvinfer1;
class FooPlugin : public IPluginV2DynamicExt
{
public:
    char const* getPluginType() const noexcept override { return "FooPlugin"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    void configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
%s
    }
};
class FooPluginCreator : public IPluginCreator
{
public:
    char const* getPluginName() const noexcept override { return "FooPlugin"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
};
REGISTER_TENSORRT_PLUGIN(FooPluginCreator);
"""

_PROFILE_APP = """#include <NvInfer.h>
using namespace nvinfer1;
void setProfile(IOptimizationProfile* profile, char const* name, Dims const& dims)
{
    auto minDims = Dims4{1, dims.d[1], dims.d[2], dims.d[3]};
    profile->setDimensions(name, OptProfileSelector::kMIN, minDims);
    profile->setDimensions(name, OptProfileSelector::kOPT, Dims4{8, dims.d[1], %s, dims.d[3]});
    profile->setDimensions(name, OptProfileSelector::kMAX, Dims4{16, dims.d[1], %s, dims.d[3]});
}
"""


def profile_program(check: str, h_opt: str = "dims.d[2]", h_max: str = "dims.d[2]", extra: Optional[dict] = None) -> dict:
    """A CMake program whose executable builds its engines (``app/build.cpp``) with an optimization profile: kMIN
    ``{1, C, H, W}`` of the network input's own dims, kOPT ``{8, C, h_opt, W}``, kMAX ``{16, C, h_max, W}``; its
    plugin library holds ``plugins/foo.cpp``, a V2DynamicExt plugin (and its creator) with ``check`` in its configurePlugin (line 12);
    ``extra`` files added (an export script)."""
    cmake = ("project(foo)\nadd_library(fooplugin SHARED plugins/foo.cpp)\n"
             "add_executable(app app/build.cpp)\ntarget_link_libraries(app fooplugin)\n")
    return {"CMakeLists.txt": cmake, "plugins/foo.cpp": _PROFILE_PLUGIN % check,
            "app/build.cpp": _PROFILE_APP % (h_opt, h_max), **(extra or {})}


_OWN_REQUEST = """#include <NvInferRuntime.h>
#include <cuda_runtime.h>
#include <{header}>
#include <cstdint>
using namespace nvinfer1;
inline void* nextPtr(size_t n, void*& ws, size_t& left)
{{
    if ({test})
    {{
        {fail}
    }}
    left -= n;
    void* p = ws;
    ws = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(ws) + n);
    return p;
}}
int decode(int n, void* workspace, size_t workspace_size, cudaStream_t stream)
{{
    if (!workspace || !workspace_size)
    {{
        workspace_size = n * 4;
        workspace_size += n * 8;
        return workspace_size;
    }}{hop}
    void* a = nextPtr(n * 4, workspace, workspace_size);
    void* b = nextPtr(n * 8, workspace, workspace_size);
    return a != b ? 0 : 1;
}}
class FooPlugin : public IPluginV2DynamicExt
{{
public:
    size_t getWorkspaceSize(PluginTensorDesc const* inputs, int32_t nbInputs, PluginTensorDesc const* outputs,
        int32_t nbOutputs) const noexcept override
    {{
        return decode(16, nullptr, 0, nullptr);
    }}
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {{
        return decode(16, workspace, {size}, stream);
    }}
    size_t mWorkspaceSize{{64}};
}};
"""


def own_request(size: str = "getWorkspaceSize(inputDesc, 2, outputDesc, 3)", test: str = "n > left", hop: str = "",
                exits: bool = False) -> str:
    """A V2DynamicExt plugin whose enqueue calls a cub-style kernel wrapper (``decode``), which hands its workspace size
    parameter on to a carver (``nextPtr``, by reference: each carve takes its share) that throws (``exits``: calls
    ``exit(1)``) at line 10 when ``test`` holds (``n > left``: more than is left); enqueue (line 37) passes ``size``
    (its own ``getWorkspaceSize(...)``, a member ``mWorkspaceSize``, a literal); ``hop``: code after the wrapper's
    size-query branch (line 24), before its carves."""
    fail = "exit(1);" if exits else 'throw std::runtime_error("Workspace is too small!");'
    return _OWN_REQUEST.format(size=size, test=test, hop=hop, fail=fail, header="cstdlib" if exits else "stdexcept")


def configure_plugin(base: str, check: str) -> str:
    """A plugin of the interface ``base`` (``IPluginV2IOExt`` or ``IPluginV2DynamicExt``) whose ``configurePlugin``
    holds ``check`` (line 12), with the ``PLUGIN_ASSERT`` macro aborting; its creator registered."""
    if base == "IPluginV2IOExt":
        sig = ("    void configurePlugin(PluginTensorDesc const* in, int32_t nbInput, PluginTensorDesc const* out,\n"
               "        int32_t nbOutput) noexcept override")
        enq = ("    int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void* workspace,\n"
               "        cudaStream_t stream) noexcept override")
    else:
        sig = ("    void configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInput,\n"
               "        DynamicPluginTensorDesc const* out, int32_t nbOutput) noexcept override")
        enq = ("    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,\n"
               "        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override")
    return f"""#include <NvInferRuntime.h>
#include <cuda_runtime.h>
#include <cstdlib>
using namespace nvinfer1;
#define PLUGIN_ASSERT(a) do {{ if (!(a)) {{ abort(); }} }} while (0)
class FooPlugin : public {base}
{{
public:
{sig}
    {{
{check}
    }}
{enq}
    {{
        return 0;
    }}
}};
class FooPluginCreator : public IPluginCreator
{{
public:
    char const* getPluginName() const noexcept override {{ return "FooPlugin"; }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
}};
REGISTER_TENSORRT_PLUGIN(FooPluginCreator);
"""


# supportsFormatCombination accepting kFLOAT or kHALF at position 0, kINT32 at 2, position 0's type elsewhere (read
# through a local reference to the descriptor, after an early return on the format)
ACCEPTS_FLOAT_HALF = """        PluginTensorDesc const& desc = inOut[pos].desc;
        if (desc.format != TensorFormat::kLINEAR)
        {
            return false;
        }
        if (pos == 0)
        {
            return desc.type == DataType::kFLOAT || desc.type == DataType::kHALF;
        }
        if (pos == 2)
        {
            return desc.type == DataType::kINT32;
        }
        return desc.type == inOut[0].desc.type;"""


def accepted_type_plugin(check: str, supports: str = ACCEPTS_FLOAT_HALF) -> str:
    """A V3 plugin (:func:`exits_plugin`) whose supportsFormatCombination is ``supports`` (lines 12-25 by default; the method at line 9) and
    whose enqueue binds ``auto type = inputDesc[0].type;`` (line 31), then runs ``check`` (line 32)."""
    return exits_plugin(enqueue="        auto type = inputDesc[0].type;\n" + check, supports=supports,
                        helpers="#define PLUGIN_ASSERT(a) do { if (!(a)) { abort(); } } while (0)")


def constructed_dispatch(init_fail: str = 'throw std::runtime_error("unsupported");',
                         init_second: str = "this->mType == nvinfer1::DataType::kHALF && mBits == 8",
                         enqueue_second: str = "mType == DataType::kHALF && mBits == 8", configure: str = "") -> str:
    """A V3 plugin (for TRT205, TRT215) whose two constructors (lines 9, 10) both call ``init`` (line 16), which sets
    ``mType`` and ``mBits`` and then dispatches on them: ``if (mType == DataType::kHALF && mBits == 4)`` (line 20),
    ``else if (<init_second>)``, ``else { <init_fail> }``. ``enqueue`` (from line 33) dispatches the same way, ``else
    if (<enqueue_second>)``, and its fall-through ``assert(false);`` is on line 46. ``configure``: the body of a
    ``configurePlugin`` (line 50; ``configure`` from line 53)."""
    return f"""#include <NvInferRuntime.h>
#include <cuda_runtime.h>
#include <cassert>
#include <stdexcept>
using namespace nvinfer1;
class FooPlugin : public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime
{{
public:
    FooPlugin(DataType type, int bits) {{ init(type, bits); }}
    FooPlugin(void const* data, size_t length)
    {{
        DataType type = *static_cast<DataType const*>(data);
        int bits = 4;
        init(type, bits);
    }}
    void init(DataType type, int bits)
    {{
        mType = type;
        mBits = bits;
        if (mType == DataType::kHALF && mBits == 4)
        {{
            mScale = 2;
        }}
        else if ({init_second})
        {{
            mScale = 1;
        }}
        else
        {{
            {init_fail}
        }}
    }}
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {{
        if (mType == DataType::kHALF && mBits == 4)
        {{
            cudaMemsetAsync(outputs[0], 0, 16, stream);
        }}
        else if ({enqueue_second})
        {{
            cudaMemsetAsync(outputs[0], 0, 8, stream);
        }}
        else
        {{
            assert(false);
        }}
        return 0;
    }}
    int32_t configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {{
{configure}
        return 0;
    }}
private:
    DataType mType;
    int mBits;
    int mScale;
}};
"""
