"""Generate a synthetic TensorRT Edge-LLM-like project with N plugins and their Python sides.

    python bench/synth.py OUT --plugins N [--seed S]

Per plugin: a V3 plugin + creator (`cpp/plugins/pK/pKPlugin.{h,cpp}`, REGISTER_TENSORRT_PLUGIN, fields
declared and parsed, a full set of V3 methods), a CUDA kernel and launcher (`cpp/kernels/pKKernels.cu`), an
ONNX translation (onnxscript, domain trt_edgellm), a direct-builder operation and an entry in the builder's
`_OPERATION_CREATORS`, a PyTorch stub, a pytest file named in a test list, and plain Python modules with no
plugin facts (as most of a real tree). Deliberate drift, so findings scale with size: every 10th
translation emits an undeclared attribute (TRT103), every 25th plugin's creator registers version "2" while
routes ask for "1" (TRT102). The tree is made a git repository (discovery asks git what is tracked).
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

HEADER = """#pragma once
#include <NvInferRuntime.h>
#include <cuda_runtime.h>
#include <string>
#include <vector>

namespace synth
{{
class {P}Plugin : public nvinfer1::IPluginV3, public nvinfer1::IPluginV3OneCore, public nvinfer1::IPluginV3OneBuild,
                  public nvinfer1::IPluginV3OneRuntime
{{
public:
    {P}Plugin(std::string const& name, nvinfer1::PluginFieldCollection const* fc);
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override;
    nvinfer1::IPluginV3* clone() noexcept override;
    char const* getPluginName() const noexcept override;
    char const* getPluginVersion() const noexcept override;
    char const* getPluginNamespace() const noexcept override;
    int32_t getNbOutputs() const noexcept override;
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs, nvinfer1::DataType const* inputTypes,
        int32_t nbInputs) const noexcept override;
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override;
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override;
    size_t getWorkspaceSize(nvinfer1::DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override;
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override;
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* context) noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override;
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;

private:
    std::string mName;
    std::string mNamespace;
    float mAlpha{{1.F}};
    int32_t mNumHeads{{0}};
    std::vector<nvinfer1::PluginField> mDataToSerialize;
    nvinfer1::PluginFieldCollection mFCToSerialize{{}};
}};

class {P}PluginCreator : public nvinfer1::IPluginCreatorV3One
{{
public:
    {P}PluginCreator();
    char const* getPluginName() const noexcept override;
    char const* getPluginVersion() const noexcept override;
    char const* getPluginNamespace() const noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override;
    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override;

private:
    static nvinfer1::PluginFieldCollection mFC;
    static std::vector<nvinfer1::PluginField> mPluginAttributes;
    std::string mNamespace;
}};

void launch{P}Kernel(float const* in, float* out, int32_t n, float alpha, cudaStream_t stream);
}} // namespace synth
"""

SOURCE = """#include "{P}Plugin.h"

#include <cstring>

using namespace nvinfer1;

namespace synth
{{
namespace
{{
constexpr char const* kPLUGIN_NAME{{"{P}Plugin"}};
constexpr char const* kPLUGIN_VERSION{{"{V}"}};

template <typename T>
T readField(PluginFieldCollection const* fc, char const* name, T fallback)
{{
    for (int32_t i = 0; i < fc->nbFields; ++i)
    {{
        if (std::strcmp(fc->fields[i].name, name) == 0)
        {{
            return *static_cast<T const*>(fc->fields[i].data);
        }}
    }}
    return fallback;
}}
}} // namespace

PluginFieldCollection {P}PluginCreator::mFC{{}};
std::vector<PluginField> {P}PluginCreator::mPluginAttributes;

REGISTER_TENSORRT_PLUGIN({P}PluginCreator);

{P}Plugin::{P}Plugin(std::string const& name, PluginFieldCollection const* fc)
    : mName(name)
{{
    for (int32_t i = 0; i < fc->nbFields; ++i)
    {{
        if (std::strcmp(fc->fields[i].name, "alpha") == 0)
        {{
            mAlpha = *static_cast<float const*>(fc->fields[i].data);
        }}
        else if (std::strcmp(fc->fields[i].name, "num_heads") == 0)
        {{
            mNumHeads = *static_cast<int32_t const*>(fc->fields[i].data);
        }}
    }}
}}

IPluginCapability* {P}Plugin::getCapabilityInterface(PluginCapabilityType type) noexcept
{{
    if (type == PluginCapabilityType::kBUILD)
    {{
        return static_cast<IPluginV3OneBuild*>(this);
    }}
    if (type == PluginCapabilityType::kRUNTIME)
    {{
        return static_cast<IPluginV3OneRuntime*>(this);
    }}
    return static_cast<IPluginV3OneCore*>(this);
}}

IPluginV3* {P}Plugin::clone() noexcept
{{
    try
    {{
        auto* p = new {P}Plugin(*this);
        return p;
    }}
    catch (...)
    {{
        return nullptr;
    }}
}}

char const* {P}Plugin::getPluginName() const noexcept
{{
    return kPLUGIN_NAME;
}}

char const* {P}Plugin::getPluginVersion() const noexcept
{{
    return kPLUGIN_VERSION;
}}

char const* {P}Plugin::getPluginNamespace() const noexcept
{{
    return mNamespace.c_str();
}}

int32_t {P}Plugin::getNbOutputs() const noexcept
{{
    return 1;
}}

int32_t {P}Plugin::getOutputDataTypes(
    DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes, int32_t nbInputs) const noexcept
{{
    outputTypes[0] = inputTypes[0];
    return 0;
}}

int32_t {P}Plugin::getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* shapeInputs,
    int32_t nbShapeInputs, DimsExprs* outputs, int32_t nbOutputs, IExprBuilder& exprBuilder) noexcept
{{
    outputs[0] = inputs[0];
    return 0;
}}

bool {P}Plugin::supportsFormatCombination(
    int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept
{{
    return inOut[pos].desc.type == DataType::kFLOAT && inOut[pos].desc.format == TensorFormat::kLINEAR;
}}

int32_t {P}Plugin::configurePlugin(
    DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept
{{
    return 0;
}}

size_t {P}Plugin::getWorkspaceSize(DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
    DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept
{{
    return 0;
}}

int32_t {P}Plugin::onShapeChange(
    PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* out, int32_t nbOutputs) noexcept
{{
    return 0;
}}

IPluginV3* {P}Plugin::attachToContext(IPluginResourceContext* context) noexcept
{{
    return clone();
}}

PluginFieldCollection const* {P}Plugin::getFieldsToSerialize() noexcept
{{
    mDataToSerialize.clear();
    mDataToSerialize.emplace_back("alpha", &mAlpha, PluginFieldType::kFLOAT32, 1);
    mDataToSerialize.emplace_back("num_heads", &mNumHeads, PluginFieldType::kINT32, 1);
    mFCToSerialize.nbFields = static_cast<int32_t>(mDataToSerialize.size());
    mFCToSerialize.fields = mDataToSerialize.data();
    return &mFCToSerialize;
}}

int32_t {P}Plugin::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept
{{
    int32_t n = 1;
    for (int32_t d = 0; d < inputDesc[0].dims.nbDims; ++d)
    {{
        n *= static_cast<int32_t>(inputDesc[0].dims.d[d]);
    }}
    launch{P}Kernel(static_cast<float const*>(inputs[0]), static_cast<float*>(outputs[0]), n, mAlpha, stream);
    return 0;
}}

{P}PluginCreator::{P}PluginCreator()
{{
    mPluginAttributes.clear();
    mPluginAttributes.emplace_back(PluginField("alpha", nullptr, PluginFieldType::kFLOAT32, 1));
    mPluginAttributes.emplace_back(PluginField("num_heads", nullptr, PluginFieldType::kINT32, 1));
    mFC.nbFields = static_cast<int32_t>(mPluginAttributes.size());
    mFC.fields = mPluginAttributes.data();
}}

char const* {P}PluginCreator::getPluginName() const noexcept
{{
    return kPLUGIN_NAME;
}}

char const* {P}PluginCreator::getPluginVersion() const noexcept
{{
    return kPLUGIN_VERSION;
}}

char const* {P}PluginCreator::getPluginNamespace() const noexcept
{{
    return mNamespace.c_str();
}}

PluginFieldCollection const* {P}PluginCreator::getFieldNames() noexcept
{{
    return &mFC;
}}

IPluginV3* {P}PluginCreator::createPlugin(char const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept
{{
    try
    {{
        return new {P}Plugin(name, fc);
    }}
    catch (...)
    {{
        return nullptr;
    }}
}}
}} // namespace synth
"""

KERNEL = """#include <cuda_runtime.h>
#include <cstdint>

namespace synth
{{
__global__ void {p}Kernel(float const* in, float* out, int32_t n, float alpha)
{{
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
    {{
        out[i] = alpha * in[i];
    }}
}}

void launch{P}Kernel(float const* in, float* out, int32_t n, float alpha, cudaStream_t stream)
{{
    dim3 block(256);
    dim3 grid((n + 255) / 256);
    {p}Kernel<<<grid, block, 0, stream>>>(in, out, n, alpha);
}}
}} // namespace synth
"""

PLAIN = '''"""Model utilities {k}.{j}: ordinary Python with no plugin facts (most of a real tree)."""

import math


def scaled_dims_{j}(hidden: int, heads: int) -> tuple[int, int]:
    head_dim = hidden // max(heads, 1)
    return heads, head_dim


class Config{j}:
    def __init__(self, hidden=1024, heads=16, eps=1e-6):
        self.hidden = hidden
        self.heads = heads
        self.eps = eps

    def rope_base(self) -> float:
        return 10000.0 * math.log(self.hidden + {j} + 1)
'''


def plugin_names(n: int) -> list[str]:
    return [f"Synth{k:04d}" for k in range(n)]


def generate(out: Path, n: int) -> None:
    names = plugin_names(n)
    w = lambda rel, text: (out / rel).parent.mkdir(parents=True, exist_ok=True) or (out / rel).write_text(text)  # noqa: E731
    w(
        "cpp/CMakeLists.txt",
        'file(GLOB_RECURSE KERNELS_CU_SRCS "kernels/*.cu")\nfile(GLOB_RECURSE PLUGIN_CPP_SRCS "plugins/*.cpp")\n'
        "add_library(synth_kernels STATIC ${KERNELS_CU_SRCS})\nadd_library(NvInfer_synth_plugin SHARED ${PLUGIN_CPP_SRCS})\n",
    )
    w("tensorrt_edgellm/__init__.py", "")
    w("tensorrt_edgellm/onnx/__init__.py", "")
    w("experimental/builder/__init__.py", "")
    w("experimental/builder/ops/__init__.py", "")
    table = ",\n".join(f'    "{p.lower()}": "{p}Plugin"' for p in names)
    w(
        "experimental/builder/ops/backend.py",
        "import tensorrt as trt\n\n_OPERATION_CREATORS = {\n" + table + "\n}\n\n\n"
        "def _creator(name):\n    creator_name = _OPERATION_CREATORS.get(name, name)\n"
        '    return trt.get_plugin_registry().get_creator(creator_name, "1", "")\n',
    )
    w(
        "experimental/builder/ops/functional/_operation.py",
        "def operation(name, *inputs, output_count=1, **attrs):\n    return (name, inputs, attrs)\n",
    )
    tests = []
    for k, p in enumerate(names):
        version = "2" if k % 25 == 24 else "1"
        w(f"cpp/plugins/{p}/{p}Plugin.h", HEADER.format(P=p))
        w(f"cpp/plugins/{p}/{p}Plugin.cpp", SOURCE.format(P=p, V=version))
        w(f"cpp/kernels/{p}Kernels.cu", KERNEL.format(P=p, p=p[0].lower() + p[1:]))
        extra = ", scale=2.0" if k % 10 == 9 else ""
        w(
            f"tensorrt_edgellm/onnx/translations/{p.lower()}.py",
            "import onnxscript\n\n_plugins = onnxscript.values.Opset(\"trt_edgellm\", 1)\n\n\n"
            f"def translate_{p.lower()}(x, alpha: float = 1.0, num_heads: int = 0):\n"
            f"    return _plugins.{p}Plugin(x, alpha=alpha, num_heads=num_heads{extra})\n",
        )
        w(
            f"experimental/builder/ops/functional/{p.lower()}.py",
            "from ._operation import operation\n\n\n"
            f"def {p.lower()}(x, alpha=1.0, num_heads=0):\n"
            f'    return operation("{p.lower()}", x, alpha=alpha, num_heads=num_heads)\n',
        )
        w(
            f"tensorrt_edgellm/ops/{p.lower()}_stub.py",
            "import torch\n\n\n"
            f'@torch.library.custom_op("trt_edgellm::{p.lower()}", mutates_args=())\n'
            f"def {p.lower()}(x: torch.Tensor, alpha: float = 1.0, num_heads: int = 0) -> torch.Tensor:\n"
            "    return x * alpha\n",
        )
        w(f"tests/python-unittests/test_{p.lower()}.py", f"def test_{p.lower()}_matches_reference():\n    pass\n")
        tests.append(f"  - tests/python-unittests/test_{p.lower()}.py::test_{p.lower()}_matches_reference")
        for j in range(5):
            w(f"tensorrt_edgellm/models/m{k:04d}/util{j}.py", PLAIN.format(k=k, j=j))
    w("tests/test_lists/l0_python_ut.yml", "tests:\n" + "\n".join(tests) + "\n")
    subprocess.run(["git", "init", "-q", str(out)], check=True)
    subprocess.run(["git", "-C", str(out), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(out), "-c", "user.email=bench@trtlint", "-c", "user.name=bench", "commit", "-qm", "synthetic"],
        check=True,
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--plugins", type=int, default=20)
    a = ap.parse_args()
    if a.out.exists() and any(a.out.iterdir()):
        raise SystemExit(f"{a.out} exists and is not empty")
    a.out.mkdir(parents=True, exist_ok=True)
    generate(a.out, a.plugins)
    print(f"wrote {a.out} with {a.plugins} plugins")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
