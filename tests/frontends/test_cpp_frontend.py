"""C++ / CUDA frontend tests: small snippets parsed with the real libclang (no mocks, no real SDK headers)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import pytest

pytest.importorskip("clang.cindex")

from trtlint.base.facts import FileFacts, from_json, to_json  # noqa: E402
from trtlint.frontends import ExtractContext, SourceFile  # noqa: E402
from trtlint.frontends import cpp  # noqa: E402
from trtlint.frontends.cpp import pch as cpp_pch  # noqa: E402

TRT_INCLUDE = Path("/work/repos/trt/include")


def _write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def _extract(root: Path, rel: str, include_dirs: tuple[str, ...] = ()) -> FileFacts:
    p = root / rel
    kind = "cuda" if p.suffix in (".cu", ".cuh") else ("header" if p.suffix in (".h", ".hpp") else "cpp")
    facts = cpp.extract(SourceFile(path=p, rel=rel, kind=kind, digest="d"), ExtractContext(root=root, include_dirs=include_dirs))
    # the facts must survive the JSON round trip used by the cache
    assert from_json(to_json(facts)) == facts
    return facts


def _fn(facts: FileFacts, qual_suffix: str):
    for f in facts.functions:
        if f.qualname.endswith(qual_suffix):
            return f
    raise AssertionError(f"no function {qual_suffix}: {[f.qualname for f in facts.functions]}")


def _ret(facts: FileFacts, cls_suffix: str, method: str) -> Optional[str]:
    f = _fn(facts, f"{cls_suffix}::{method}")
    assert f.returns, f"{method} has no returns"
    return f.returns[0].value


V3_HEADER = """
#pragma once
#include <NvInferRuntime.h>
#include <string>
#include <vector>
namespace acme { namespace plugins {
class FooPlugin : public nvinfer1::IPluginV3, public nvinfer1::IPluginV3OneCore,
                  public nvinfer1::IPluginV3OneBuild, public nvinfer1::IPluginV3OneRuntime
{
public:
    FooPlugin(std::string const& name, nvinfer1::PluginFieldCollection const* fc);
    char const* getPluginName() const noexcept override;
    char const* getPluginVersion() const noexcept override;
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override;
    std::string mNamespace;
    int32_t mHeads{};
    float mScale{};
    std::vector<nvinfer1::PluginField> mData;
    nvinfer1::PluginFieldCollection mFC;
};
class FooPluginCreator : public nvinfer1::IPluginCreatorV3One
{
public:
    FooPluginCreator();
    char const* getPluginName() const noexcept override;
    char const* getPluginVersion() const noexcept override;
    char const* getPluginNamespace() const noexcept override;
    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override;
    static constexpr char const* kNAMESPACE = "acme";
    std::vector<nvinfer1::PluginField> mAttrs;
};
}} // namespace acme::plugins
"""

V3_SOURCE = """
#include "foo.h"
#include "common/checkMacros.h"   // project header that does not exist here: tolerated
#include <cstring>
#include <optional>
#define FOO_PLUGIN_VERSION "2"
using namespace nvinfer1;
namespace acme { namespace plugins {
namespace {
constexpr char const* kPLUGIN_NAME{"FooPlugin"};
void allocScratch(void** p, size_t n) { cudaMalloc(p, n); }
template <typename T>
std::optional<T> parsePluginScalarField(std::string const& fieldName, PluginFieldCollection const* fc)
{
    for (int32_t i = 0; i < fc->nbFields; ++i)
        if (fieldName.compare(fc->fields[i].name) == 0) return *static_cast<T const*>(fc->fields[i].data);
    return std::nullopt;
}
int32_t launchHelper(void* ws, cudaStream_t stream) { allocScratch(&ws, 16); return 0; }
} // namespace

REGISTER_TENSORRT_PLUGIN(FooPluginCreator);

FooPlugin::FooPlugin(std::string const& name, PluginFieldCollection const* fc)
    : mHeads(parsePluginScalarField<int32_t>("num_heads", fc).value_or(8))
    , mScale(parsePluginScalarField<float>("scale", fc).value())
{
    ELLM_CHECK(mHeads > 0, "num_heads must be positive");
}
char const* FooPlugin::getPluginName() const noexcept { return kPLUGIN_NAME; }
char const* FooPlugin::getPluginVersion() const noexcept { return FOO_PLUGIN_VERSION; }
int32_t FooPlugin::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept
{
    auto run = [&]() { return launchHelper(workspace, stream); };
    return run();
}
PluginFieldCollection const* FooPlugin::getFieldsToSerialize() noexcept
{
    mData.clear();
    mData.emplace_back("num_heads", &mHeads, PluginFieldType::kINT32, 1);
    mData.emplace_back("scale", &mScale, PluginFieldType::kFLOAT32, 1);
    mFC.nbFields = mData.size();
    mFC.fields = mData.data();
    return &mFC;
}
FooPluginCreator::FooPluginCreator()
{
    mAttrs.emplace_back(PluginField("num_heads", nullptr, PluginFieldType::kINT32, 1));
    mAttrs.emplace_back(nvinfer1::PluginField{"scale", nullptr, PluginFieldType::kFLOAT32, 1});
}
char const* FooPluginCreator::getPluginName() const noexcept { return kPLUGIN_NAME; }
char const* FooPluginCreator::getPluginVersion() const noexcept { return FOO_PLUGIN_VERSION; }
char const* FooPluginCreator::getPluginNamespace() const noexcept { return kNAMESPACE; }
IPluginV3* FooPluginCreator::createPlugin(char const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept
{
    auto* layerName = new std::string(name);
    delete layerName;
    return nullptr;
}
}} // namespace acme::plugins
"""


@pytest.fixture(scope="module")
def v3(tmp_path_factory: pytest.TempPathFactory) -> FileFacts:
    root = tmp_path_factory.mktemp("v3")
    _write(root, "cpp/plugins/foo/foo.h", V3_HEADER)
    _write(root, "cpp/plugins/foo/foo.cpp", V3_SOURCE)
    return _extract(root, "cpp/plugins/foo/foo.cpp")


def test_v3_classes(v3: FileFacts) -> None:
    assert not v3.problems, v3.problems  # a missing project header is not a problem
    by_name = {c.name: c for c in v3.classes}
    plugin = by_name["FooPlugin"]
    assert plugin.qualname == "acme::plugins::FooPlugin"
    assert (plugin.kind, plugin.family) == ("plugin", "v3")
    assert {"IPluginV3", "IPluginV3OneCore", "IPluginV3OneBuild", "IPluginV3OneRuntime"} <= set(plugin.bases)
    assert plugin.span.path == "cpp/plugins/foo/foo.h"
    creator = by_name["FooPluginCreator"]
    assert (creator.kind, creator.family) == ("creator", "creator_v3")
    assert "IPluginCreatorV3One" in creator.bases
    assert v3.includes == ("cpp/plugins/foo/foo.h",)


def test_v3_names_resolved(v3: FileFacts) -> None:
    assert _ret(v3, "FooPlugin", "getPluginName") == "FooPlugin"
    r = _fn(v3, "FooPlugin::getPluginName").returns[0]
    assert r.via == "kPLUGIN_NAME" and r.def_span is not None and r.def_span.line == 10
    # #define
    r = _fn(v3, "FooPluginCreator::getPluginVersion").returns[0]
    assert (r.value, r.via) == ("2", "FOO_PLUGIN_VERSION")
    assert r.def_span is not None and r.def_span.line == 6
    # static constexpr member
    r = _fn(v3, "FooPluginCreator::getPluginNamespace").returns[0]
    assert (r.value, r.via) == ("acme", "kNAMESPACE")
    # not a constant
    r = _fn(v3, "FooPlugin::getPluginNamespace").returns[0]
    assert r.value is None and r.expr == "mNamespace.c_str()"
    assert _fn(v3, "FooPlugin::getPluginNamespace").noexcept


def test_v3_field_decls(v3: FileFacts) -> None:
    creator = _fn(v3, "FooPluginCreator::FooPluginCreator")
    got = [(d.name, d.type, d.length, d.data) for d in creator.field_decls]
    assert got == [("num_heads", "kINT32", "1", "nullptr"), ("scale", "kFLOAT32", "1", "nullptr")]
    ser = _fn(v3, "FooPlugin::getFieldsToSerialize")
    got = [(d.name, d.type, d.length, d.data) for d in ser.field_decls]
    assert got == [("num_heads", "kINT32", "1", "&mHeads"), ("scale", "kFLOAT32", "1", "&mScale")]
    assert ser.field_decls[0].span.path == "cpp/plugins/foo/foo.cpp"


def test_v3_field_reads_with_default(v3: FileFacts) -> None:
    ctor = _fn(v3, "FooPlugin::FooPlugin")
    reads = {r.name: r for r in ctor.field_reads}
    assert set(reads) == {"num_heads", "scale"}
    assert reads["num_heads"].has_default and reads["num_heads"].default == "8"
    assert not reads["scale"].has_default


def test_v3_registration_and_macro_calls(v3: FileFacts) -> None:
    assert len(v3.registrations) == 1
    reg = v3.registrations[0]
    assert (reg.creator, reg.qualname, reg.how) == ("FooPluginCreator", "acme::plugins::FooPluginCreator", "macro")
    ctor = _fn(v3, "FooPlugin::FooPlugin")
    # ELLM_CHECK comes from a header we do not have: still seen, with its arguments
    calls = [c for c in ctor.calls if c.callee == "ELLM_CHECK"]
    assert calls and calls[0].args == ("mHeads > 0", '"num_heads must be positive"')


def test_call_chain_without_real_headers(v3: FileFacts) -> None:
    enq = _fn(v3, "FooPlugin::enqueue")
    assert enq.noexcept
    helper = [c for c in enq.calls if c.callee.endswith("launchHelper")]
    assert helper and helper[0].usr  # resolved: the index can follow it
    lh = [f for f in v3.functions if f.usr == helper[0].usr]
    assert lh, "helper definition must be in the facts"
    alloc = [c for c in lh[0].calls if c.callee.endswith("allocScratch")]
    assert alloc
    scratch = [f for f in v3.functions if f.usr == alloc[0].usr][0]
    assert [c.callee for c in scratch.calls] == ["cudaMalloc"]
    create = _fn(v3, "FooPluginCreator::createPlugin")
    assert any(c.kind == "new" for c in create.calls)


def test_same_constant_name_in_two_tus(tmp_path: Path) -> None:
    for n, val in (("a", "AlphaPlugin"), ("b", "BetaPlugin")):
        _write(tmp_path, f"plugins/{n}.cpp", f"""
#include <NvInferRuntime.h>
namespace {{ constexpr char const* kPLUGIN_NAME{{"{val}"}}; }}
class P{n} : public nvinfer1::IPluginV3OneCore {{
public:
    char const* getPluginName() const noexcept override {{ return kPLUGIN_NAME; }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
    char const* getPluginNamespace() const noexcept override {{ return ""; }}
}};
""")
    a = _extract(tmp_path, "plugins/a.cpp")
    b = _extract(tmp_path, "plugins/b.cpp")
    assert _ret(a, "Pa", "getPluginName") == "AlphaPlugin"
    assert _ret(b, "Pb", "getPluginName") == "BetaPlugin"
    assert _ret(a, "Pa", "getPluginVersion") == "1"


def test_strcmp_field_reads(tmp_path: Path) -> None:
    _write(tmp_path, "src/c.cpp", """
#include <NvInferRuntime.h>
#include <cstring>
#include <string>
#include <string_view>
using namespace std::literals;
namespace { constexpr char const* kEPS_FIELD = "epsilon"; }
void parse(nvinfer1::PluginFieldCollection const* fc)
{
    nvinfer1::PluginField const* fields = fc->fields;
    for (int i = 0; i < fc->nbFields; ++i)
    {
        char const* attrName = fields[i].name;
        if (!strcmp(attrName, "axis")) {}
        else if (!strcmp(fields[i].name, kEPS_FIELD)) {}
        if (std::string("beta") == fc->fields[i].name) {}
        std::string fieldName(fields[i].name);
        if (fieldName == "gamma") {}
        if (fieldName.compare("delta") == 0) {}
        std::string_view sv(fields[i].name);
        if (sv == "ratio"sv) {}
    }
}
void notAReader(char const* s) { if (!strcmp(s, "unrelated")) {} }
""")
    facts = _extract(tmp_path, "src/c.cpp")
    names = [r.name for r in _fn(facts, "parse").field_reads]
    assert names == ["axis", "epsilon", "beta", "gamma", "delta", "ratio"]
    assert _fn(facts, "parse").field_reads[0].method == "parse"
    assert not _fn(facts, "notAReader").field_reads


def test_cuda_launches(tmp_path: Path) -> None:
    _write(tmp_path, "kernels/k.cu", """
#include <cuda_runtime.h>
#include <cuda_fp16.h>
template <typename T>
__global__ void scaleKernel(T* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i]; }
void launchScale(half* x, int n, cudaStream_t stream)
{
    dim3 grid((n + 255) / 256);
    scaleKernel<half><<<grid, 256, 0, stream>>>(x, n);
    scaleKernel<<<grid, 256>>>(x, n);
    cudaMemsetAsync(x, 0, n, stream);
}
""")
    facts = _extract(tmp_path, "kernels/k.cu")
    assert facts.kind == "cuda"
    assert not facts.problems, facts.problems
    launches = [c for c in _fn(facts, "launchScale").calls if c.kind == "launch"]
    assert [(c.callee, c.stream, c.args) for c in launches] == [
        ("scaleKernel", "stream", ("x", "n")),
        ("scaleKernel", None, ("x", "n")),
    ]
    memset = [c for c in _fn(facts, "launchScale").calls if c.callee == "cudaMemsetAsync"][0]
    assert memset.stream == "stream"
    assert any(f.name == "scaleKernel" for f in facts.functions)


def test_device_function_bodies_are_not_walked(tmp_path: Path) -> None:
    """__global__ and __device__-only functions run on the GPU (no throw, exit or host API): they are recorded
    (a launch resolves to them) but their bodies are not walked; __host__ __device__ bodies still are."""
    _write(tmp_path, "kernels/d.cu", """
#include <cuda_runtime.h>
#include <math.h>
float hostHelper(float v);
__device__ float devOnly(float v) { return expf(v) + hostHelper(v); }
__host__ __device__ float both(float v) { return hostHelper(v); }
template <typename T>
__global__ void kern(T* x) { x[0] = devOnly(x[0]) + both(x[0]); }
void launch(float* x, cudaStream_t s) { kern<<<1, 1, 0, s>>>(x); both(1.f); }
""")
    facts = _extract(tmp_path, "kernels/d.cu")
    assert not facts.problems, facts.problems
    assert _fn(facts, "devOnly").calls == ()
    assert _fn(facts, "kern").calls == ()
    assert [c.callee for c in _fn(facts, "both").calls] == ["hostHelper"]
    assert [c.callee for c in _fn(facts, "launch").calls] == ["kern", "both"]


def test_v2_dynext_with_project_base_creator(tmp_path: Path) -> None:
    _write(tmp_path, "plugin/common/plugin.h", """
#pragma once
#include <NvInferPlugin.h>
#include <string>
namespace nvinfer1 { namespace pluginInternal {
class BaseCreator : public IPluginCreator
{
public:
    void setPluginNamespace(char const* ns) noexcept override { mNamespace = ns; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }
protected:
    std::string mNamespace;
};
}}
""")
    _write(tmp_path, "plugin/barPlugin/barPlugin.cpp", """
#include "common/plugin.h"
namespace nvinfer1 { namespace plugin {
static char const* const kBAR_NAME{"BarPlugin_TRT"};
static char const* const kBAR_VERSION{"1"};
class BarPlugin : public IPluginV2DynamicExt
{
public:
    char const* getPluginType() const noexcept override { return kBAR_NAME; }
    char const* getPluginVersion() const noexcept override { return kBAR_VERSION; }
};
class BarPluginCreator : public nvinfer1::pluginInternal::BaseCreator
{
public:
    char const* getPluginName() const noexcept override { return kBAR_NAME; }
    char const* getPluginVersion() const noexcept override { return kBAR_VERSION; }
    PluginFieldCollection const* getFieldNames() noexcept override { return nullptr; }
    IPluginV2* createPlugin(char const* name, PluginFieldCollection const* fc) noexcept override { return nullptr; }
    IPluginV2* deserializePlugin(char const* name, void const* data, size_t len) noexcept override { return nullptr; }
};
}}
""")
    facts = _extract(tmp_path, "plugin/barPlugin/barPlugin.cpp")
    by = {c.name: c for c in facts.classes}
    assert (by["BarPlugin"].kind, by["BarPlugin"].family) == ("plugin", "v2dynext")
    assert by["BarPlugin"].qualname == "nvinfer1::plugin::BarPlugin"
    assert {"IPluginV2DynamicExt", "IPluginV2Ext", "IPluginV2"} <= set(by["BarPlugin"].bases)
    cr = by["BarPluginCreator"]
    assert (cr.kind, cr.family) == ("creator", "creator_v2")
    assert "BaseCreator" in cr.bases and "IPluginCreator" in cr.bases
    assert by["BaseCreator"].qualname == "nvinfer1::pluginInternal::BaseCreator"
    assert _ret(facts, "BarPluginCreator", "getPluginName") == "BarPlugin_TRT"
    assert _ret(facts, "BarPlugin", "getPluginType") == "BarPlugin_TRT"
    assert "plugin/common/plugin.h" in facts.includes


def test_creator_list_registration(tmp_path: Path) -> None:
    _write(tmp_path, "plugin/api/inferPlugin.cpp", """
#include <NvInferRuntime.h>
namespace nvinfer1 { namespace plugin {
class ACreator : public IPluginCreatorV3One {};
class BCreator : public IPluginCreatorV3One {};
}}
template <typename CreatorType> void initializePlugin(void* logger, char const* ns) {}
extern "C" bool initLib(void* logger, char const* ns)
{
    initializePlugin<nvinfer1::plugin::ACreator>(logger, ns);
    return true;
}
nvinfer1::IPluginCreatorInterface* const* getCreators(int& n)
{
    static nvinfer1::plugin::BCreator sB;
    static nvinfer1::IPluginCreatorInterface* const kLIST[] = {&sB};
    n = 1;
    return kLIST;
}
""")
    facts = _extract(tmp_path, "plugin/api/inferPlugin.cpp")
    regs = sorted((r.creator, r.qualname, r.how) for r in facts.registrations)
    assert regs == [
        ("&sB", "nvinfer1::plugin::BCreator", "list"),
        ("nvinfer1::plugin::ACreator", "nvinfer1::plugin::ACreator", "list"),
    ]


def test_creator_list_holders_and_template_registration(tmp_path: Path) -> None:
    """Issue 31: a list's elements through a helper returning its argument's address, `new`, and a list declared
    outside functions are recorded with the function holding or reading the list; a call of a function template
    that registers its type parameter (through a member template) is a registration of the class it names."""
    _write(tmp_path, "plugin/api/plugins.cpp", """
#include <NvInferRuntime.h>
#include <array>
#include <memory>
using namespace nvinfer1;
#define CREATOR(C) class C : public IPluginCreatorV3One { public: \\
    char const* getPluginName() const noexcept override { return #C; } \\
    char const* getPluginVersion() const noexcept override { return "1"; } \\
    char const* getPluginNamespace() const noexcept override { return ""; } \\
    PluginFieldCollection const* getFieldNames() noexcept override { return nullptr; } \\
    IPluginV3* createPlugin(char const*, PluginFieldCollection const*, TensorRTPhase) noexcept override { return nullptr; } };
CREATOR(ACreator)
CREATOR(BCreator)
CREATOR(CCreator)
CREATOR(DCreator)
template <typename T> nvinfer1::IPluginCreatorInterface* creatorPtr(T& c) { return &c; }
nvinfer1::IPluginCreatorInterface* const* listA(int& n)
{
    static ACreator sA;
    static std::array kLIST = {creatorPtr(sA), static_cast<nvinfer1::IPluginCreatorInterface*>(new BCreator())};
    n = 2;
    return kLIST.data();
}
static CCreator sC;
static nvinfer1::IPluginCreatorInterface* const kFILE[] = {&sC};
nvinfer1::IPluginCreatorInterface* const* listC() { return kFILE; }
struct Registry
{
    template <typename T> void add(char const* ns)
    {
        std::unique_ptr<T> c{new T{}};
        getPluginRegistry()->registerCreator(*c, ns);
    }
};
template <typename T> void initOne(Registry& r, char const* ns) { r.add<T>(ns); }
void initAll(Registry& r) { initOne<DCreator>(r, ""); }
""")
    facts = _extract(tmp_path, "plugin/api/plugins.cpp")
    regs = sorted((r.qualname, r.how, r.holder) for r in facts.registrations if r.qualname)
    assert regs == [
        ("ACreator", "list", "listA"),
        ("BCreator", "list", "listA"),
        ("CCreator", "list", "listC"),
        ("DCreator", "call", None),
    ]
    # the template's own registerCreator call, where the instantiation registers D (what a reader searches for)
    d, = [r for r in facts.registrations if r.qualname == "DCreator"]
    assert (d.span.line, d.inner.line) == (36, 32)


# Plugins that implement only their own interface's methods (the legacy implicit-batch ones are overridden, final
# or defaulted, in the interfaces themselves, as in TensorRT 8-10): not abstract under the stand-in headers.
_PRELUDE_PLUGINS = """
#include <NvInfer.h>
#include <NvInferRuntime.h>
#include <cstring>
using namespace nvinfer1;
namespace acme {
#define V2_COMMON(T) \
    char const* getPluginType() const noexcept override { return #T; } \
    char const* getPluginVersion() const noexcept override { return "1"; } \
    int32_t getNbOutputs() const noexcept override { return 1; } \
    int32_t initialize() noexcept override { return 0; } \
    void terminate() noexcept override {} \
    size_t getSerializationSize() const noexcept override { return 4; } \
    void serialize(void* buf) const noexcept override { std::memcpy(buf, &mA, 4); } \
    void destroy() noexcept override { delete this; } \
    void setPluginNamespace(char const*) noexcept override {} \
    char const* getPluginNamespace() const noexcept override { return ""; } \
    DataType getOutputDataType(int32_t, DataType const* t, int32_t) const noexcept override { return t[0]; }
class DynPlugin : public IPluginV2DynamicExt
{
public:
    DynPlugin(int a, float b) : mA(a), mB(b) {}
    IPluginV2DynamicExt* clone() const noexcept override { return new DynPlugin(mA, mB); }
    DimsExprs getOutputDimensions(int32_t, DimsExprs const* in, int32_t, IExprBuilder&) noexcept override
    { return in[0]; }
    bool supportsFormatCombination(int32_t, PluginTensorDesc const*, int32_t, int32_t) noexcept override
    { return true; }
    void configurePlugin(DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t)
        noexcept override {}
    size_t getWorkspaceSize(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t)
        const noexcept override { return 0; }
    int32_t enqueue(PluginTensorDesc const*, PluginTensorDesc const*, void const* const*, void* const*, void*,
        cudaStream_t) noexcept override { return 0; }
    V2_COMMON(Dyn)
private:
    int mA;
    float mB;
};
class IOPlugin : public IPluginV2IOExt
{
public:
    explicit IOPlugin(int a) : mA(a) {}
    IPluginV2Ext* clone() const noexcept override { return new IOPlugin(mA); }
    Dims getOutputDimensions(int32_t, Dims const* in, int32_t) noexcept override { return in[0]; }
    bool supportsFormatCombination(int32_t, PluginTensorDesc const*, int32_t, int32_t) const noexcept override
    { return true; }
    void configurePlugin(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) noexcept override {}
    size_t getWorkspaceSize(int32_t) const noexcept override { return 0; }
    int32_t enqueue(int32_t, void const* const*, void* const*, void*, cudaStream_t) noexcept override { return 0; }
    V2_COMMON(IO)
private:
    int mA;
};
class ExtPlugin : public IPluginV2Ext
{
public:
    explicit ExtPlugin(int a) : mA(a) {}
    IPluginV2Ext* clone() const noexcept override { return new ExtPlugin(mA); }
    Dims getOutputDimensions(int32_t, Dims const* in, int32_t) noexcept override { return in[0]; }
    bool supportsFormat(DataType, PluginFormat) const noexcept override { return true; }
    size_t getWorkspaceSize(int32_t) const noexcept override { return 0; }
    int32_t enqueue(int32_t, void const* const*, void* const*, void*, cudaStream_t) noexcept override { return 0; }
    V2_COMMON(Ext)
private:
    int mA;
};
class DynCreator : public IPluginCreator
{
public:
    char const* getPluginName() const noexcept override { return "Dyn"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    PluginFieldCollection const* getFieldNames() noexcept override { return nullptr; }
    IPluginV2* createPlugin(char const*, PluginFieldCollection const*) noexcept override
    {
        int a = 1;
        float b = 2.f;
        return new DynPlugin(a, b);
    }
    IPluginV2* deserializePlugin(char const*, void const* data, size_t) noexcept override
    {
        int a = *static_cast<int const*>(data);
        if (a > 1)
            return new ExtPlugin(a);
        return new IOPlugin(a);
    }
    void setPluginNamespace(char const*) noexcept override {}
    char const* getPluginNamespace() const noexcept override { return ""; }
};
} // namespace acme
"""


def test_prelude_plugins_are_not_abstract(tmp_path: Path) -> None:
    # clang drops a `new` of an abstract class (with the constructor call in it): under a prelude whose
    # IPluginV2DynamicExt / IPluginV2IOExt / IPluginV2Ext leave the legacy methods pure, every such plugin is one
    _write(tmp_path, "plugins.cpp", _PRELUDE_PLUGINS)
    facts = _extract(tmp_path, "plugins.cpp")
    assert not facts.problems, facts.problems
    calls = lambda fn: [c.callee for c in _fn(facts, fn).calls]  # noqa: E731
    assert "acme::DynPlugin::DynPlugin" in calls("DynCreator::createPlugin")
    assert {"acme::IOPlugin::IOPlugin", "acme::ExtPlugin::ExtPlugin"} <= set(calls("DynCreator::deserializePlugin"))
    for cls in ("DynPlugin", "IOPlugin", "ExtPlugin"):
        assert f"acme::{cls}::{cls}" in calls(f"{cls}::clone")
    # and no diagnostic of clang's about it (the frontend does not count semantic errors among the unit's problems)
    from trtlint.frontends.cpp.base import libclang, load
    from trtlint.frontends.cpp.flags import compile_args

    load()
    src = SourceFile(path=tmp_path / "plugins.cpp", rel="plugins.cpp", kind="cpp", digest="d")
    tu = libclang.index.parse(str(src.path), args=compile_args(src, ExtractContext(root=tmp_path)))
    errors = [d.spelling for d in tu.diagnostics if d.severity >= 3]
    assert errors == [], errors


@pytest.mark.skipif(not (TRT_INCLUDE / "NvInferRuntime.h").is_file(), reason="real TensorRT headers not present")
def test_real_headers_win_over_prelude(tmp_path: Path) -> None:
    _write(tmp_path, "p.cpp", """
#include <NvInferRuntime.h>
class Q : public nvinfer1::IPluginV3, public nvinfer1::IPluginV3OneCore, public nvinfer1::IPluginV3OneBuildV2 {};
int32_t where() { return NV_TENSORRT_MAJOR; }
""")
    facts = _extract(tmp_path, "p.cpp", include_dirs=(str(TRT_INCLUDE),))
    q = facts.classes[0]
    assert q.family == "v3" and "IPluginV3OneBuildV2" in q.bases and q.abstract is False
    # the prelude's NvInferRuntime.h would not define IPluginV3OneBuild in namespace v_2_0
    assert not facts.problems, facts.problems


def test_undeclared_calls_are_kept(tmp_path: Path) -> None:
    _write(tmp_path, "x.cpp", """
#include "missing/runtime.h"
void f(int n) { mysteryCall(n, 2); }
""")
    facts = _extract(tmp_path, "x.cpp")
    callees = [c.callee for c in _fn(facts, "f").calls]
    assert callees == ["mysteryCall"]
    assert all(c.usr is None for c in _fn(facts, "f").calls)


def test_partial_parse_problem(tmp_path: Path) -> None:
    _write(tmp_path, "bad.cpp", "int ok() { return 1; }\nint broken( { return undeclared_symbol; }\n")
    facts = _extract(tmp_path, "bad.cpp")
    assert facts.problems and facts.problems[0].partial
    assert "bad.cpp:" in facts.problems[0].message


def test_non_utf8_file_is_read(tmp_path: Path) -> None:
    # a Latin-1 comment is bytes to the compiler (issue 23): the file is read, columns stay byte columns
    p = tmp_path / "latin.cpp"
    p.write_bytes(b"// caf\xe9\n/* \xe9\xe9 */ int f() { return 1; }\n")
    facts = _extract(tmp_path, "latin.cpp")
    assert facts.problems == ()
    fn = _fn(facts, "f")
    assert (fn.span.line, fn.span.col) == (2, 10)  # `int` after 9 bytes


@pytest.mark.parametrize(
    "blob",
    [b"\x00\x01\x02binary\x00", b"}}}} template <<<< ))) #include <<<", b"", "class { ; } } ::: \u2603".encode()],
)
def test_garbage_never_raises(tmp_path: Path, blob: bytes) -> None:
    p = tmp_path / "g.cpp"
    p.write_bytes(blob)
    facts = cpp.extract(SourceFile(path=p, rel="g.cpp", kind="cpp", digest="d"), ExtractContext(root=tmp_path))
    assert isinstance(facts, FileFacts)


def test_header_as_main_file(tmp_path: Path) -> None:
    _write(tmp_path, "inc/h.h", V3_HEADER)
    facts = _extract(tmp_path, "inc/h.h")
    assert facts.kind == "header"
    assert {c.name for c in facts.classes} == {"FooPlugin", "FooPluginCreator"}


def test_missing_file_is_a_problem(tmp_path: Path) -> None:
    facts = cpp.extract(
        SourceFile(path=tmp_path / "nope.cpp", rel="nope.cpp", kind="cpp", digest="d"), ExtractContext(root=tmp_path)
    )
    assert facts.problems and "cannot read" in facts.problems[0].message


GUARDS_SOURCE = """
#include <NvInferRuntime.h>
#include <cuda_runtime.h>
#include <memory>
#include <mutex>
#include <string>
#include <cstdio>
#define MY_CHECK(x) (void) (x)
struct Runner { explicit Runner(int n) {} void run() {} };
struct Logger { void log(char const*) {} };
Runner* gRunner = nullptr;
class G
{
public:
    Logger& instance()
    {
        static Logger* sInstance = new Logger();
        return *sInstance;
    }
    void onceFlag()
    {
        static std::once_flag flag;
        std::call_once(flag, [&]() { cudaMalloc(&mBuf, 16); });
        cudaMemset(mBuf, 0, 16);
    }
    void notEq()
    {
        if (mBuf == nullptr)
        {
            int status = 0;
            if (status == 0)
            {
                MY_CHECK(cudaMalloc(&mBuf, 64));
            }
        }
        if (nullptr == mBuf) { cudaMalloc(&mBuf, 1); }
        if (mBuf == NULL) { cudaMalloc(&mBuf, 2); }
        if (!mBuf) { cudaMalloc(&mBuf, 3); } else { cudaFree(mBuf); }
        if (!mInitialized && mSize > 0) { cudaMalloc(&mBuf, 4); mInitialized = true; }
        if (mName.empty()) { mName.assign("x"); }
        if (mCount == 0) { cudaMalloc(&mBuf, 5); ++mCount; }
        if (!mRunner.get()) { mRunner.reset(new Runner(1)); }
        if (this->mRaw == nullptr) { this->mRaw = new Runner(2); }
        if (!gRunner) { gRunner = new Runner(3); }
    }
    void negatives(int x, void* p)
    {
        if (x > 0) { cudaMalloc(&mBuf, 6); }
        if (!p) { cudaMalloc(&p, 7); }
        void* local = nullptr;
        if (local == nullptr) { cudaMalloc(&local, 8); }
        if (mBuf == nullptr || x > 1) { cudaMalloc(&mBuf, 9); }
        cudaMalloc(&mBuf, 10);
        if (!mInitialized) { cudaMalloc(&p, 13); }
    }
    bool early()
    {
        if (mRaw != nullptr)
        {
            return true;
        }
        mRaw = new Runner(4);
        MY_CHECK(cudaMalloc(&mBuf, 11));
        return true;
    }
    bool earlyLocal(bool done)
    {
        if (done) return false;
        cudaMalloc(&mBuf, 12);
        return true;
    }
    void* mBuf{nullptr};
    bool mInitialized{false};
    int mSize{0};
    int mCount{0};
    std::string mName;
    std::unique_ptr<Runner> mRunner;
    Runner* mRaw{nullptr};
};
"""


@pytest.fixture(scope="module")
def guards(tmp_path_factory: pytest.TempPathFactory) -> FileFacts:
    root = tmp_path_factory.mktemp("guards")
    _write(root, "src/g.cpp", GUARDS_SOURCE)
    return _extract(root, "src/g.cpp")


def _guards_of(facts: FileFacts, fn: str, callee: str) -> list[Optional[str]]:
    return [c.guard for c in _fn(facts, fn).calls if c.callee == callee]


def _malloc_guard(facts: FileFacts, fn: str, size: str) -> Optional[str]:
    got = [c.guard for c in _fn(facts, fn).calls if c.callee == "cudaMalloc" and c.args and c.args[-1] == size]
    assert len(got) == 1, (size, _fn(facts, fn).calls)
    return got[0]


def test_guard_static_init(guards: FileFacts) -> None:
    assert _guards_of(guards, "G::instance", "operator new") == ["static-init"]


def test_guard_call_once(guards: FileFacts) -> None:
    assert _malloc_guard(guards, "G::onceFlag", "16") == "static-init"
    assert _guards_of(guards, "G::onceFlag", "cudaMemset") == [None]
    assert _guards_of(guards, "G::onceFlag", "std::call_once") == [None]


def test_guard_null_checks(guards: FileFacts) -> None:
    fn = "G::notEq"
    # nested if inside the guarded branch: still guarded (also the macro around the call)
    assert _malloc_guard(guards, fn, "64") == "null-check:mBuf == nullptr"
    assert _guards_of(guards, fn, "MY_CHECK") == ["null-check:mBuf == nullptr"]
    assert _malloc_guard(guards, fn, "1") == "null-check:nullptr == mBuf"
    assert _malloc_guard(guards, fn, "2") == "null-check:mBuf == NULL"
    assert _malloc_guard(guards, fn, "3") == "null-check:!mBuf"
    assert _guards_of(guards, fn, "cudaFree") == [None]  # else-branch of `if (!mBuf)`
    assert _malloc_guard(guards, fn, "4") == "null-check:!mInitialized && mSize > 0"
    assert [c.guard for c in _fn(guards, fn).calls if c.callee.endswith("assign")] == ["null-check:mName.empty()"]
    assert _malloc_guard(guards, fn, "5") == "null-check:mCount == 0"
    assert [c.guard for c in _fn(guards, fn).calls if c.callee.endswith("reset")] == ["null-check:!mRunner.get()"]
    news = [c.guard for c in _fn(guards, fn).calls if c.kind == "new"]
    assert news == ["null-check:!mRunner.get()", "null-check:this->mRaw == nullptr", "null-check:!gRunner"]


def test_guard_negatives(guards: FileFacts) -> None:
    # (13: a flag the block never sets is a configuration switch, not a one-time guard)
    for size in ("6", "7", "8", "9", "10", "13"):
        assert _malloc_guard(guards, "G::negatives", size) is None, size
    assert _malloc_guard(guards, "G::earlyLocal", "12") is None


def test_guard_early_return(guards: FileFacts) -> None:
    assert _malloc_guard(guards, "G::early", "11") == "null-check:mRaw != nullptr"
    assert _guards_of(guards, "G::early", "MY_CHECK") == ["null-check:mRaw != nullptr"]
    assert [c.guard for c in _fn(guards, "G::early").calls if c.kind == "new"] == ["null-check:mRaw != nullptr"]


def test_field_read_styles(v3: FileFacts, tmp_path: Path) -> None:
    ctor = _fn(v3, "FooPlugin::FooPlugin")
    assert {r.name: r.style for r in ctor.field_reads} == {"num_heads": "call", "scale": "call"}
    _write(tmp_path, "src/c.cpp", """
#include <NvInferRuntime.h>
#include <cstring>
void parse(nvinfer1::PluginFieldCollection const* fc)
{
    for (int i = 0; i < fc->nbFields; ++i)
    {
        if (!strcmp(fc->fields[i].name, "axis")) {}
    }
}
""")
    facts = _extract(tmp_path, "src/c.cpp")
    assert [(r.name, r.style) for r in _fn(facts, "parse").field_reads] == [("axis", "compare")]


def test_map_field_read_types(tmp_path: Path) -> None:
    """A key of a name -> pointer table is read as the scalar the mapped type points to (int* kINT32, float*
    kFLOAT32, int64_t* kINT64, a const char* key too); a void* table or one of pointers to bool decides nothing."""
    _write(tmp_path, "src/c.cpp", """
#include <NvInferRuntime.h>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
void parse(nvinfer1::PluginFieldCollection const* fc)
{
    int a = 0; float b = 0; int64_t c = 0; bool d = false; double e = 0;
    std::map<std::string, int*> ints{{"a", &a}};
    std::unordered_map<std::string, float*> floats{{"b", &b}};
    std::map<char const*, int64_t*> longs{{"c", &c}};
    std::map<std::string, void*> opaque{{"v", &a}};
    std::map<std::string, bool*> flags{{"d", &d}};
    std::map<std::string, double*> doubles{{"e", &e}};
    for (int i = 0; i < fc->nbFields; ++i)
    {
        auto i1 = ints.find(fc->fields[i].name);
        auto i2 = floats.find(fc->fields[i].name);
        auto i3 = longs.find(fc->fields[i].name);
        auto i4 = opaque.find(fc->fields[i].name);
        auto i5 = flags.find(fc->fields[i].name);
        auto i6 = doubles.find(fc->fields[i].name);
    }
}
""")
    facts = _extract(tmp_path, "src/c.cpp")
    assert {r.name: (r.style, r.type) for r in _fn(facts, "parse").field_reads} == {
        "a": ("map", "kINT32"), "b": ("map", "kFLOAT32"), "c": ("map", "kINT64"), "v": ("map", None),
        "d": ("map", None), "e": ("map", "kFLOAT64")}


def test_async_call_expanded_from_a_multiline_macro_does_not_crash(tmp_path):
    """Found on TensorRT OSS instanceNormFwdImpl.cu: an ...Async call written inside a multi-line macro
    body has arguments with no source text of their own; extraction must go on."""
    from trtlint.frontends import ExtractContext, SourceFile
    from trtlint.frontends import cpp as fe

    code = (
        "#include <cuda_runtime.h>\n"
        "#define PLUGIN_CHECK_CUDA(call)                 \\\n"
        "    do                                          \\\n"
        "    {                                           \\\n"
        "        cudaError_t status = call;              \\\n"
        "        if (status != cudaSuccess)              \\\n"
        "        {                                       \\\n"
        "            return status;                      \\\n"
        "        }                                       \\\n"
        "    } while (0)\n"
        "int launch(void* buf, size_t n, cudaStream_t stream)\n"
        "{\n"
        "#define KERNEL_RUN(A)                                             \\\n"
        "    {                                                             \\\n"
        "        PLUGIN_CHECK_CUDA(cudaMemsetAsync(buf, 0, n, stream));    \\\n"
        "    }\n"
        "    if (n > 2)\n"
        "    {\n"
        "        KERNEL_RUN(1);\n"
        "    }\n"
        "    return 0;\n"
        "}\n"
    )
    p = tmp_path / "k.cu"
    p.write_text(code)
    ff = fe.extract(SourceFile(p, "k.cu", "cuda", "d"), ExtractContext(root=tmp_path))
    assert ff.problems == ()
    fn = next(f for f in ff.functions if f.name == "launch")
    assert any(c.callee == "cudaMemsetAsync" for c in fn.calls)


PROJECT_RUNTIME_H = """
#ifndef ACME_NV_INFER_RUNTIME_H
#define ACME_NV_INFER_RUNTIME_H
#include <cstdint>
namespace nvinfer1 {
class IPluginV3 { public: virtual ~IPluginV3() noexcept = default; };
class IPluginV3OneCore {
public:
    virtual char const* getPluginName() const noexcept = 0;
    virtual ~IPluginV3OneCore() noexcept = default;
};
// not in the stand-in prelude: resolves only when this header is the one in use
int32_t acmeOnlyInTheProjectHeader(int32_t x) noexcept;
}
#endif
"""


def test_project_sdk_header_is_precompiled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A project's own include/NvInferRuntime.h goes into the shared PCH instead of the stand-in."""
    monkeypatch.delenv("TRTLINT_NO_PCH", raising=False)
    monkeypatch.setenv("TRTLINT_PCH_DIR", str(tmp_path / "pch"))
    monkeypatch.setattr(cpp_pch, "_pch_paths", {})
    _write(tmp_path, "include/NvInferRuntime.h", PROJECT_RUNTIME_H)
    src = """
#include "NvInferRuntime.h"
#include <string>
class P : public nvinfer1::IPluginV3, public nvinfer1::IPluginV3OneCore {
public:
    char const* getPluginName() const noexcept override { nvinfer1::acmeOnlyInTheProjectHeader(%d); return "P"; }
};
"""
    _write(tmp_path, "p1.cpp", src % 1)
    _write(tmp_path, "p2.cpp", src % 2)
    before = cpp.stats()
    for rel in ("p1.cpp", "p2.cpp"):
        facts = _extract(tmp_path, rel)
        assert not facts.problems, facts.problems
        (p,) = facts.classes
        assert p.family == "v3"
        (call,) = _fn(facts, "P::getPluginName").calls
        assert call.callee.endswith("acmeOnlyInTheProjectHeader") and call.usr is not None
    after = cpp.stats()
    assert after["pch_used"] - before["pch_used"] == 2
    assert after["pch_built"] - before["pch_built"] == 1 and after["pch_fallback"] == before["pch_fallback"]
    # the PCH holds the project's header, not the stand-in
    (hdr,) = (tmp_path / "pch").glob("*.h")
    assert "#include <NvInferRuntime.h>" in hdr.read_text()
    (key,) = [k for k, v in cpp_pch._pch_paths.items() if v]
    header = str((tmp_path / "include" / "NvInferRuntime.h").resolve())
    assert ["NvInferRuntime.h", header] in [list(r) for r in cpp_pch._pch_records[key]]
    assert not any(str(cpp.PRELUDE_DIR / "trt") in f for _s, f in cpp_pch._pch_records[key])


def test_pch_not_used_when_the_include_path_shadows_its_headers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A TU whose include path finds another copy of a header the PCH read is parsed without the PCH."""
    monkeypatch.delenv("TRTLINT_NO_PCH", raising=False)
    monkeypatch.setenv("TRTLINT_PCH_DIR", str(tmp_path / "pch"))
    monkeypatch.setattr(cpp_pch, "_pch_paths", {})
    _write(tmp_path, "include/NvInferRuntime.h",
           PROJECT_RUNTIME_H.replace("#include <cstdint>", "#include <cstdint>\n#include <acme_detail.h>"))
    _write(tmp_path, "include/acme_detail.h", "#pragma once\nint acmeSdkDetail();\n")
    _write(tmp_path, "p.cpp", '#include "NvInferRuntime.h"\nint g() { return acmeSdkDetail(); }\n')
    # the PCH read include/acme_detail.h; this directory's TUs find their own copy first
    _write(tmp_path, "sub/acme_detail.h", "#pragma once\nint acmeLocalDetail();\n")
    _write(tmp_path, "sub/q.cpp", '#include "NvInferRuntime.h"\nint f() { return acmeLocalDetail(); }\n')
    before = cpp.stats()
    (call,) = _fn(_extract(tmp_path, "p.cpp"), "g").calls
    assert call.usr is not None
    assert cpp.stats()["pch_used"] == before["pch_used"] + 1
    before = cpp.stats()
    facts = _extract(tmp_path, "sub/q.cpp")
    (call,) = _fn(facts, "f").calls
    assert call.usr is not None  # declared by sub/acme_detail.h, which a PCH use would have hidden
    after = cpp.stats()
    assert after["pch_used"] == before["pch_used"] and after["pch_skipped"] == before["pch_skipped"] + 1


def test_member_dispatch_fallthrough_and_member_writes(tmp_path: Path) -> None:
    """Call.fallthrough: the last else of an if/else-if chain on the object's own members and constants, spelled
    canonically (``this->``, qualifiers, parentheses); a chain testing anything else gives none. member_writes: the
    scalar members a function writes, with the line."""
    _write(tmp_path, "p.cpp", """#include <cstdlib>
namespace ns { enum class Kind { kA, kB }; }
struct P
{
    ns::Kind mKind;
    int mBits;
    void init(ns::Kind k, int bits)
    {
        mKind = k;
        this->mBits = bits;
        if (mKind == ns::Kind::kA && mBits == 4) { }
        else if (this->mKind == ns::Kind::kB) { }
        else { if (bits) abort(); exit(1); }
    }
    void run(int x, P& other)
    {
        if (x == 3) { } else { abort(); }
        if (other.mBits == 2) { } else { abort(); }
        other.mBits++;
    }
};
""")
    facts = _extract(tmp_path, "p.cpp")
    init = _fn(facts, "P::init")
    assert init.member_writes == (("P::mKind", 9), ("P::mBits", 10))
    by_line = {(c.callee, c.span.line): c.fallthrough for c in init.calls if c.callee in ("abort", "exit")}
    conds = ("((this->P::mKind == ns::Kind::kA) && (this->P::mBits == 4))", "(this->P::mKind == ns::Kind::kB)")
    assert by_line[("exit", 13)] is not None and by_line[("exit", 13)].conditions == conds
    assert by_line[("exit", 13)].direct and by_line[("exit", 13)].line == 11
    assert not by_line[("abort", 13)].direct  # inside the else's own if
    run = _fn(facts, "P::run")
    assert all(c.fallthrough is None for c in run.calls)  # a parameter, another object's member
    assert run.member_writes == (("P::mBits", 19),)
