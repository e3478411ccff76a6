"""Never silent about the stand-in headers: a call whose arguments name a CUDA declaration trtlint's stand-ins lack
is invalid to clang and not followed; the run says which units use such names, and which names."""

from __future__ import annotations

from trtlint.checks.examples.hotpath import plugin_cpp
from trtlint.report.context import Analysis

from .helpers import check_project, write_project

_GAP = "    cudaGraphicsResource_t res = nullptr;\n    helper(cudaGraphicsMapResources(1, &res, stream));"
_HELPERS = "int helper(int);"


def _analysis(tmp_path) -> Analysis:
    res = check_project(tmp_path, select=["TRT301"])
    return Analysis.of_index(res.index)


def test_a_unit_using_a_cuda_name_the_stand_ins_lack_is_named_with_the_name(tmp_path):
    write_project(tmp_path, {"plugins/foo.cpp": plugin_cpp(_GAP, _HELPERS)})
    a = _analysis(tmp_path)
    assert a.stand_in_gaps == (("plugins/foo.cpp", ("cudaGraphicsResource_t",)),)
    assert ("1 unit uses CUDA-style names no header of the parse declares (trtlint's stand-ins for CUDA's lack them, "
            "or the project's own are not compiled), calls over them not followed (cudaGraphicsResource_t)") in a.line()
    assert Analysis.from_dict(a.to_dict()).stand_in_gaps == a.stand_in_gaps


def test_what_the_stand_ins_declare_and_a_missing_include_explain_are_not_gaps(tmp_path):
    # the fields, vector types and memory pools of the CUDA runtime are declared (each once made a call invalid)
    body = ("    cudaDeviceProp prop;\n    float2 v = make_float2(1.f, 2.f);\n    cudaMemPool_t pool;\n"
            "    helper(prop.maxGridSize[0] + min(prop.l2CacheSize, 4) + (int) v.x);\n"
            "    helper(cudaDeviceGetDefaultMemPool(&pool, 0));")
    write_project(tmp_path, {"plugins/foo.cpp": plugin_cpp(body, _HELPERS)})
    assert _analysis(tmp_path).stand_in_gaps == ()
    # a unit with an include that did not resolve is partly analysed already: its unknown names are not listed again
    write_project(tmp_path, {"plugins/foo.cpp": plugin_cpp(_GAP, _HELPERS + '\n#include "not_here.h"')})
    a = _analysis(tmp_path)
    assert a.stand_in_gaps == () and a.partly


def test_the_cudnn_cublas_and_half_names_the_corpus_showed_missing_are_declared(tmp_path):
    # each was a gap of the corpus run: jetson-inference's cuDNN plugins, TensorRT OSS's __internal_half2float
    helpers = _HELPERS + "\n#include <cudnn.h>\n#include <cublas_v2.h>"
    body = ("    cudnnHandle_t h = nullptr; cublasHandle_t b = nullptr; cudnnTensorDescriptor_t d = nullptr;\n"
            "    cudnnReduceTensorDescriptor_t r = nullptr; float y = 0.f;\n"
            "    cudnnConvolutionFwdAlgoPerf_t perf; cudnnConvolutionBwdDataAlgo_t bwd = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;\n"
            "    helper(cudnnScaleTensor(h, d, &y, &y) + cublasScopy(b, 1, &y, 1, &y, 1));\n"
            "    helper(cudnnSetReduceTensorDescriptor(r, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN,\n"
            "        CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES) + (int) CUDNN_OP_TENSOR_MUL + (int) bwd);\n"
            "    helper((int) __internal_half2float(1) + (int) perf.memory);")
    write_project(tmp_path, {"plugins/foo.cpp": plugin_cpp(body, helpers)})
    assert _analysis(tmp_path).stand_in_gaps == ()


def test_a_type_aligned_with_the_cuda_alignment_macro_keeps_the_calls_beside_it(tmp_path):
    # `typedef struct __CUDA_ALIGN__(8) {...} T;` (FasterTransformer's and TensorRT-LLM's own bf16/fp8 vectors): with
    # the macro undeclared the typedef was a syntax error among the filtered ones, T undeclared, and a call in a
    # statement using T invalid and not followed, with nothing said
    helpers = _HELPERS + "\ntypedef struct __CUDA_ALIGN__(8) { float array[2]; } __nv_float2_pair;"
    body = "    __nv_float2_pair p{};\n    helper((int) p.array[0] + cudaMalloc(nullptr, 0));"
    write_project(tmp_path, {"plugins/foo.cpp": plugin_cpp(body, helpers)})
    res = check_project(tmp_path, select=["TRT301"])
    assert [d.code for d in res.diagnostics] == ["TRT301"]


def test_a_syntax_error_over_a_cuda_style_macro_the_stand_ins_lack_is_named(tmp_path):
    # the error is a syntax error, not an undeclared name: it was set aside as the stand-ins' and nothing said
    helpers = _HELPERS + "\ntypedef struct __PROJECT_ALIGN__(8) { float array[2]; } __nv_float2_pair;"
    body = "    __nv_float2_pair p{};\n    helper((int) p.array[0] + cudaMalloc(nullptr, 0));"
    write_project(tmp_path, {"plugins/foo.cpp": plugin_cpp(body, helpers)})
    a = _analysis(tmp_path)
    # (and the type it left undeclared, named by the syntax error of the statement using it)
    assert a.stand_in_gaps == (("plugins/foo.cpp", ("__PROJECT_ALIGN__", "__nv_float2_pair")),)
    assert not a.partly
