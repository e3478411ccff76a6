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
