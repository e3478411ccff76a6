"""The shipped TRT304 status tables: each entry names the calls it is meant to (a name takes the first entry whose
pattern it matches, so an entry that an earlier, broader one covers is never used)."""

from __future__ import annotations

import fnmatch

from trtlint.config.packs import load_packs


def test_no_status_api_entry_is_shadowed_by_an_earlier_one():
    entries = load_packs().status_apis
    for i, e in enumerate(entries):
        probe = e.name.rstrip("*") + "X"  # a name only this entry's pattern is written for
        first = next(x for x in entries if fnmatch.fnmatchcase(probe, x.name))
        assert first is e, f"{e.name} ({e.what}) is shadowed by the earlier {first.name} ({first.what})"


def test_library_calls_are_named_by_their_library():
    p = load_packs()
    got = {n: p.lookup("status_apis", n).what for n in
           ["cudaMemcpyAsync", "cuMemcpyHtoD", "cudnnConvolutionForward", "cublasSgemm", "cublasLtMatmul",
            "cusparseSpMM", "cufftExecC2C", "curandGenerate", "ncclAllReduce"]}
    assert got == {"cudaMemcpyAsync": "CUDA runtime", "cuMemcpyHtoD": "CUDA driver",
                   "cudnnConvolutionForward": "cuDNN", "cublasSgemm": "cuBLAS", "cublasLtMatmul": "cuBLASLt",
                   "cusparseSpMM": "cuSPARSE", "cufftExecC2C": "cuFFT", "curandGenerate": "cuRAND",
                   "ncclAllReduce": "NCCL"}


def test_cublas_is_not_excepted_as_cub():
    p = load_packs()
    assert p.lookup("status_except", "cublasSgemm") is None and p.lookup("status_except", "cublasLtMatmul") is None
    assert p.lookup("status_except", "cub::DeviceReduce::Sum") is not None
    assert p.lookup("status_except", "cutlass::gemm::device::Gemm::run") is not None
    assert p.lookup("status_except", "cute_dsl_prefill_wrapper") is not None  # a project CuTe DSL wrapper
