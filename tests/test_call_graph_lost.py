"""Calls the C++ call graph lost (issues 22/23, seeded drifts on public trees), real libclang: an allocation
seeded into a project function reached through each pattern is reported on the hot path of ``enqueue``.

(a) a function template of the project whose name has a CUDA library's prefix (``cudaScaleUp<T>``), declared in
    a header, defined and explicitly instantiated in a ``.cu`` file without a plugin marker, called with explicit
    template arguments inside a check macro: the lazy expansion took any ``cuda[A-Z]...`` name for the CUDA API;
(b) a member call through a pointer to a class template specialization (``Model<T>*``) inside a plugin class
    template, the member defined out of line (``void Model<T>::forward(...) {``) in another file: the
    expansion's scan of ``Cls::name(`` spellings did not see ``Cls<T>::name(``;
(c) a call whose result initialises a variable (``int status = helper(...);``) where the helper's declaration
    names a type that did not resolve: libclang keeps the variable and drops its initializer;
(d) a function template in a namespace, declared in a header whose types the plugin's unit cannot resolve (a
    header it includes is missing), so the call ``cumLaunch<float>(...)`` is kept by its unqualified name only,
    and defined and explicitly instantiated (twice) in a ``.cu`` file: the name was looked up only as written;
(e) the same with an explicit specialization of the template that has a body of its own: the call, whose template
    arguments are not known, runs the template's body.
"""

from __future__ import annotations

from trtlint.checks.examples.hotpath import plugin_cpp

from .helpers import check_project, write_project

_SEED = "    void* seeded = nullptr;\n    cudaMalloc(&seeded, 1024);\n"


def _allocs(res):
    return [(d.span.path, d.span.line, d.message.split(": ")[-1]) for d in res.diagnostics if d.code == "TRT301"]


def test_function_template_with_a_cuda_prefix_in_a_check_macro(tmp_path):
    header = ("#pragma once\n#include <cuda_runtime.h>\n"
              "template <typename T>\ncudaError_t cudaScaleUp(T* in, int n, T* out, cudaStream_t stream);\n")
    kernels = ('#include "scale.h"\n'
               "template <typename T>\n__global__ void scaleKernel(T* in, int n, T* out) {}\n"
               "template <typename T>\n"
               "cudaError_t cudaScaleUp(T* in, int n, T* out, cudaStream_t stream)\n{\n"
               + _SEED +  # cudaMalloc on line 8
               "    scaleKernel<T><<<1, 32, 0, stream>>>(in, n, out);\n"
               "    return cudaGetLastError();\n}\n"
               "template cudaError_t cudaScaleUp<float>(float*, int, float*, cudaStream_t);\n")
    macro = '#include "scale.h"\n#include <cstdlib>\n#define CHECK(x) do { if ((x) != cudaSuccess) abort(); } while (0)\n'
    body = "    CHECK(cudaScaleUp<float>((float*) inputs[0], 16, (float*) outputs[0], stream));"
    write_project(tmp_path, {"plugins/scale.h": header, "plugins/scale.cu": kernels,
                             "plugins/foo.cpp": plugin_cpp(body, macro)})
    res = check_project(tmp_path, select=["TRT301"])
    assert _allocs(res) == [("plugins/scale.cu", 8, "FooPlugin::enqueue -> cudaScaleUp -> cudaMalloc")]


_MODEL_H = """#pragma once
#include <cuda_runtime.h>
namespace ft {
template <typename T>
class Model {
public:
    void forward(T* out, cudaStream_t stream);
};
}
"""
_MODEL_CC = """#include "model.h"
namespace ft {
template <typename T>
void Model<T>::forward(T* out, cudaStream_t stream)
{
""" + _SEED + """}
template class Model<float>;
}
"""
_TEMPLATE_PLUGIN = """#include <NvInferRuntime.h>
#include <cuda_runtime.h>
#include "model.h"
using namespace nvinfer1;
namespace ft {
template <typename T>
class FooPlugin : public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime
{
public:
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
private:
    Model<T>* model_ = nullptr;
};
template <typename T>
int32_t FooPlugin<T>::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept
{
    model_->forward((T*) outputs[0], stream);
    return 0;
}
template class FooPlugin<float>;
}
"""


def test_member_of_a_class_template_through_a_pointer_in_a_plugin_template(tmp_path):
    write_project(tmp_path, {"models/model.h": _MODEL_H, "models/model.cc": _MODEL_CC,
                             "plugins/foo.cpp": _TEMPLATE_PLUGIN.replace('"model.h"', '"../models/model.h"')})
    res = check_project(tmp_path, select=["TRT301"])
    assert _allocs(res) == [("models/model.cc", 7, "FooPlugin::enqueue -> Model::forward -> cudaMalloc")]


def test_a_call_initialising_a_variable_dropped_by_libclang_is_kept(tmp_path):
    # LegacyShape is declared by no header: the helper's declaration is invalid, and libclang keeps `status`
    # without its initializer (the call is not in the tree); the helper is defined in a file without a marker
    header = "#pragma once\nint prepare(LegacyShape shape, void* out);\n"
    helper = '#include "prep.h"\n#include <cuda_runtime.h>\nint prepare(LegacyShape shape, void* out)\n{\n' + _SEED + "    return 0;\n}\n"
    body = ("    int status = prepare(gShape, outputs[0]);\n"
            "    auto again = ::prepare(gShape, outputs[0]); // a comment\n"
            "    int n = 2 * prepare(gShape, outputs[0]);\n"  # not a call statement: left alone
            "    if (status != 0 || again != 0 || n != 0) return 1;")
    write_project(tmp_path, {"plugins/prep.h": header, "plugins/prep.cpp": helper,
                             "plugins/foo.cpp": plugin_cpp(body, '#include "prep.h"\nstatic LegacyShape gShape;')})
    res = check_project(tmp_path, select=["TRT301"])
    kept = [(c.callee, c.span.line, c.span.col, c.args) for fn in res.index.functions.values()
            if fn.qualname == "FooPlugin::enqueue" for c in fn.calls]
    assert kept == [("prepare", 16, 18, ("gShape", "outputs[0]")), ("prepare", 17, 20, ("gShape", "outputs[0]"))], kept
    assert _allocs(res) == [("plugins/prep.cpp", 6, "FooPlugin::enqueue -> prepare -> cudaMalloc")]


_CUM_H = """#pragma once
namespace lib {
namespace ops {
template <typename T>
void cumLaunch(T* out, const T* in, Extent const& e, cudaStream_t stream);
}
}
"""
_CUM_CU = """#include <cuda_runtime.h>
#include "extent.h"
#include "cum.h"
namespace lib {
namespace ops {
template <typename T>
__global__ void cumKernel(T* out, const T* in, int n) {}
template <typename T>
void cumLaunch(T* out, const T* in, Extent const& e, cudaStream_t stream)
{
""" + _SEED + """    cumKernel<T><<<1, 32, 0, stream>>>(out, in, e.n);
}
template void cumLaunch<float>(float* out, const float* in, Extent const& e, cudaStream_t stream);
template void cumLaunch<int>(int* out, const int* in, Extent const& e, cudaStream_t stream);
}
}
"""


def test_a_namespace_template_called_unresolved_from_a_unit_missing_a_header(tmp_path):
    plugin = plugin_cpp("    Extent e{4};\n    cumLaunch<float>(static_cast<float*>(outputs[0]), static_cast<const float*>(inputs[0]), e, stream);",
                        '#include "common.h"\n#include "cum.h"\nnamespace lib {\nnamespace ops {')
    write_project(tmp_path, {"plugins/cum.h": _CUM_H, "plugins/extent.h": "#pragma once\nstruct Extent { int n; };\n",
                             "plugins/cum.cu": _CUM_CU, "plugins/foo.cpp": plugin + "}\n}\n"})
    res = check_project(tmp_path, select=["TRT301"])
    assert _allocs(res) == [("plugins/cum.cu", 12, "FooPlugin::enqueue -> cumLaunch -> cudaMalloc")]


def test_an_unresolved_call_of_a_template_with_an_explicit_specialization_runs_the_template(tmp_path):
    spec = ("template <>\nvoid cumLaunch<double>(double* out, const double* in, Extent const& e, cudaStream_t stream)\n"
            "{\n    cumKernel<double><<<1, 32, 0, stream>>>(out, in, e.n);\n}\n")
    plugin = plugin_cpp("    Extent e{4};\n    cumLaunch<float>(static_cast<float*>(outputs[0]), static_cast<const float*>(inputs[0]), e, stream);",
                        '#include "common.h"\n#include "cum.h"\nnamespace lib {\nnamespace ops {')
    write_project(tmp_path, {"plugins/cum.h": _CUM_H, "plugins/extent.h": "#pragma once\nstruct Extent { int n; };\n",
                             "plugins/cum.cu": _CUM_CU.replace("template void cumLaunch<int>", spec + "template void cumLaunch<int>"),
                             "plugins/foo.cpp": plugin + "}\n}\n"})
    res = check_project(tmp_path, select=["TRT301"])
    assert _allocs(res) == [("plugins/cum.cu", 12, "FooPlugin::enqueue -> cumLaunch -> cudaMalloc")]
