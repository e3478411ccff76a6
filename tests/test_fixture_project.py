"""The Edge-LLM-shaped fixture project: each rule fires exactly where expected and nowhere else."""

from __future__ import annotations

from pathlib import Path

from trtlint.config import load_settings
from trtlint.engine import run

FIXTURE = Path(__file__).parent / "fixtures" / "edgellm_mini"

TRANSLATIONS = "tensorrt_edgellm/onnx/dynamo_translations.py"
BACKEND = "experimental/builder/ops/backend.py"
KERNELS = "cpp/kernels/fooKernels.cu"

EXPECTED = [
    ("TRT001", "tensorrt_edgellm/onnx/export_helpers.py", 9, "could not be parsed: syntax error"),
    ("TRT101", BACKEND, 9, "direct-route entry 'qux': 'QuxPlugin' in _OPERATION_CREATORS names plugin 'QuxPlugin', but no creator registers it"),
    ("TRT101", TRANSLATIONS, 32, "names plugin 'FooPlugn', but no creator registers it; closest registered: 'FooPlugin'"),
    ("TRT102", BACKEND, 8, "asks for 'BarPlugin' version '1' (the route's fixed version), but its creator registers version '2'"),
    ("TRT102", TRANSLATIONS, 22, "asks for 'BarPlugin' version '1' (the default when plugin_version is absent)"),
    ("TRT103", "experimental/builder/ops/functional/foo.py", 7, "attribute 'bias' of direct-route operation 'foo'"),
    ("TRT103", TRANSLATIONS, 17, "attribute 'scale' of ONNX node 'trt_edgellm::FooPlugin'"),
    ("TRT104", "scripts/verify_plugins.py", 5, "get_creator('FooPlugin', '1', 'trt_edgellm') asks for 'FooPlugin' in namespace 'trt_edgellm', but creator FooPluginCreator is registered under namespace ''"),
    ("TRT105", "tensorrt_edgellm/onnx/custom_translations.py", 26, "attribute 'alpha' of ONNX node 'trt_edgellm::FooPlugin' is an INT, which TensorRT's ONNX parser passes as kINT32, but creator FooPluginCreator declares 'alpha' as kFLOAT32"),
    ("TRT106", "tensorrt_edgellm/onnx/custom_translations.py", 11, "the PyTorch stub trt_edgellm::foo has 4, but translation _foo_default_translation has no default for 'num_heads'"),
    ("TRT106", "tensorrt_edgellm/onnx/custom_translations.py", 11, "translation _foo_default_translation has 2.0, but creator FooPluginCreator falls back to 1.F for field 'alpha'"),
    ("TRT107", "experimental/builder/models/tiny/model.py", 9, "get_creator('FooPlugin', '1', '')"),
    ("TRT210", "cpp/plugins/kvUpdatePlugin/kvUpdatePlugin.cpp", 74, "KvUpdatePlugin::configurePlugin returns the bool `shapesAreValid(in, nbInputs)` as an int32_t status"),
    ("TRT213", "cpp/plugins/kvUpdatePlugin/kvUpdatePlugin.cpp", 79, "KvUpdatePlugin::getAliasedInput aliases an output to an input (`outputIndex == kOUT_CACHE_IDX ? kIN_CACHE_IDX : -1`), but nothing in the project turns on PreviewFeature::kALIASED_PLUGIN_IO_10_03"),
    ("TRT212", "cpp/plugins/fooPlugin/fooPlugin.cpp", 119, "FooPluginCreator::createPlugin creates FooPlugin without passing it the creator's namespace"),
    # num_heads is validated (ELLM_CHECK in the constructor), so only alpha's silent default is reported
    ("TRT214", "cpp/plugins/fooPlugin/fooPlugin.cpp", 115, "FooPluginCreator::createPlugin silently falls back to defaults for fields FooPlugin serializes (so they are required at runtime): alpha -> 1.F"),
    ("TRT301", "cpp/kernels/fooKernels.cu", 17, "FooPlugin::enqueue -> FooPlugin::runFoo -> launchFooKernel -> cudaMalloc"),
    ("TRT302", "cpp/kernels/fooKernels.cu", 24, "BarPlugin::enqueue -> launchBarKernel -> cudaStreamSynchronize"),
    # issue 3: Edge-LLM check macros (cpp/common/checkMacros.h); the ELLM_CHECK in FooPlugin's constructor is
    # caught by the try in FooPluginCreator::createPlugin and not reported
    ("TRT204", KERNELS, 29, "ELLM_CHECK (throws std::runtime_error when the condition is false) can throw out of noexcept FooPlugin::enqueue"),
    ("TRT204", KERNELS, 30, "CUDA_CHECK (throws std::runtime_error on a CUDA error (check::_checkCuda)) can throw out of noexcept FooPlugin::enqueue"),
    ("TRT205", KERNELS, 38, "assert (aborts the process when the assertion fails (in builds without NDEBUG)) can end the process from BarPlugin::enqueue"),
    ("TRT303", KERNELS, 31, "kernel launch mini::fooKernel<<<...>>> has no stream on the hot path of FooPlugin::enqueue"),
    ("TRT304", KERNELS, 17, "the status of cudaMalloc (CUDA runtime) is discarded on the hot path of FooPlugin::enqueue"),
    ("TRT304", KERNELS, 24, "the status of cudaStreamSynchronize (CUDA runtime) is discarded on the hot path of BarPlugin::enqueue"),
    ("TRT304", KERNELS, 33, "the status of cudaMemcpyAsync (CUDA runtime) is discarded"),
    ("TRT305", KERNELS, 33, "cudaMemcpyAsync copies from pageable host memory (`scale`, a local variable on the stack)"),
    ("TRT401", "cpp/plugins/barPlugin/barReduce.cu", 1, "PLUGIN_CPP_SRCS"),
    ("TRT402", "tests/python-unittests/test_bar_plugin.py", 1, "none of the 2 tests in tests/python-unittests/test_bar_plugin.py"),
    ("TRT402", "tests/python-unittests/test_foo_plugin.py", 13, "test_chunked_prefill is not named by any test list"),
    ("TRT403", "tests/test_lists/l0_python_ut.yml", 6, "'tests/python-unittests/test_bar_plugin.py' selects nothing: it is a bare file path"),
    ("TRT403", "tests/test_lists/l0_python_ut.yml", 7, "no test 'test_prefil' in tests/python-unittests/test_foo_plugin.py (closest: test_prefill)"),
    ("TRT404", "unittests/kernels/ropeKernelTests.cu", 4, "no CMake test target builds ropeKernelTests.cu: its googletest cases (RopeKernel.Matches)"),
]


def test_fixture_project_findings_exact():
    settings = load_settings(FIXTURE)
    res = run(settings, jobs=1, use_cache=False)
    assert res.profile.name == "edgellm"
    got = sorted((d.code, d.span.path, d.span.line, d.message) for d in res.diagnostics)
    unexpected = list(got)
    for code, path, line, fragment in EXPECTED:
        hit = next((g for g in unexpected if g[0] == code and g[1] == path and g[2] == line and fragment in g[3]), None)
        assert hit is not None, f"missing {code} {path}:{line} {fragment!r}; got:\n" + "\n".join(map(str, got))
        unexpected.remove(hit)
    assert unexpected == [], "unexpected findings:\n" + "\n".join(map(str, unexpected))


def test_fixture_index_resolves_constants_per_translation_unit():
    res = run(load_settings(FIXTURE), jobs=1, use_cache=False)
    creators = {c.plugin_name: c for c in res.index.creators}
    assert creators["FooPlugin"].plugin_version == "1"
    assert creators["BarPlugin"].plugin_version == "2"  # same constant name, other file, other value
    assert creators["FooPlugin"].name.via == "kPLUGIN_NAME"
    assert [f.name for f in creators["FooPlugin"].fields] == ["alpha", "num_heads"]
    assert [f.name for f in creators["BarPlugin"].fields] == ["axis"]
    assert all(c.registrations for c in creators.values())


def test_call_graph_expansion_never_parses_tests():
    res = run(load_settings(FIXTURE), jobs=1, use_cache=False)
    # the .cu launchers were parsed because enqueue needs them; the test's same-named definition was not
    assert res.index.files["cpp/kernels/fooKernels.cu"].functions
    assert res.index.files["unittests/fooKernelsTest.cu"].functions == ()
    enq = res.index.find_method("mini::BarPlugin", "enqueue")[0]
    targets = {res.index.resolve_call(c).span.path for c in enq.calls if res.index.resolve_call(c)}
    assert targets == {"cpp/kernels/fooKernels.cu"}
