"""The Edge-LLM-shaped fixture project: each rule fires exactly where expected and nowhere else."""

from __future__ import annotations

from pathlib import Path

from trtlint.config.settings import load_settings
from trtlint.pipeline.run import run

FIXTURE = Path(__file__).parent / "fixtures" / "edgellm_mini"

TRANSLATIONS = "tensorrt_edgellm/onnx/dynamo_translations.py"
BACKEND = "experimental/builder/ops/backend.py"
KERNELS = "cpp/kernels/fooKernels.cu"

# every finding, exactly: (code, severity, path, line, column, message)
EXPECTED = [
    ("TRT001", "warning", "tensorrt_edgellm/onnx/export_helpers.py", 9, 34, "tensorrt_edgellm/onnx/export_helpers.py could not be parsed: syntax error: '(' was never closed"),
    ("TRT101", "error", BACKEND, 9, 5, "direct-route entry 'qux': 'QuxPlugin' in _OPERATION_CREATORS names plugin 'QuxPlugin', but no creator registers it; closest registered: 'FooPlugin', 'BarPlugin'"),
    ("TRT101", "error", TRANSLATIONS, 32, 12, "ONNX node 'trt_edgellm::FooPlugn' names plugin 'FooPlugn', but no creator registers it; closest registered: 'FooPlugin'"),
    ("TRT102", "error", BACKEND, 8, 5, "direct-route entry 'bar': 'BarPlugin' in _OPERATION_CREATORS asks for 'BarPlugin' version '1' (the route's fixed version), but its creator registers version '2'"),
    ("TRT102", "error", TRANSLATIONS, 22, 12, "ONNX node 'trt_edgellm::BarPlugin' asks for 'BarPlugin' version '1' (the default when plugin_version is absent), but its creator registers version '2'"),
    ("TRT103", "error", "experimental/builder/ops/functional/foo.py", 7, 9, "attribute 'bias' of direct-route operation 'foo' (creator 'FooPlugin' via _OPERATION_CREATORS) is not a field creator FooPluginCreator declares (getFieldNames: alpha, num_heads): this route hands createPlugin the whole collection, and it is not seen to read it, so the value has no effect"),
    ("TRT103", "error", TRANSLATIONS, 17, 72, "attribute 'scale' of ONNX node 'trt_edgellm::FooPlugin' is not a field creator FooPluginCreator declares (getFieldNames: alpha, num_heads): TensorRT drops it silently"),
    ("TRT104", "error", "scripts/verify_plugins.py", 5, 53, "get_creator('FooPlugin', '1', 'trt_edgellm') asks for 'FooPlugin' in namespace 'trt_edgellm', but creator FooPluginCreator is registered under namespace '': TensorRT will not find it"),
    ("TRT105", "error", "tensorrt_edgellm/onnx/custom_translations.py", 26, 38, "attribute 'alpha' of ONNX node 'trt_edgellm::FooPlugin' is an INT, which TensorRT's ONNX parser passes as kINT32, but creator FooPluginCreator declares 'alpha' as kFLOAT32: the plugin reads the wrong type; fix the node: write 'alpha' as a FLOAT (e.g. `alpha=1.0`)"),
    ("TRT106", "error", "tensorrt_edgellm/onnx/custom_translations.py", 11, 51, "default of 'num_heads' drifts: the PyTorch stub trt_edgellm::foo has 4, but translation _foo_default_translation has no default for 'num_heads': torch.export drops the argument when it equals the stub's default, and the translation then fails"),
    ("TRT106", "error", "tensorrt_edgellm/onnx/custom_translations.py", 11, 82, "default of 'alpha' drifts: translation _foo_default_translation has 2.0, but creator FooPluginCreator falls back to 1.F for field 'alpha' when the attribute is absent"),
    ("TRT107", "error", "experimental/builder/models/tiny/model.py", 9, 15, "model file uses the TensorRT plugin API (get_creator('FooPlugin', '1', '')); model files call operations and leave creator lookup, field encoding and plugin creation to the backend"),
    ("TRT210", "error", "cpp/plugins/kvUpdatePlugin/kvUpdatePlugin.cpp", 74, 16, "KvUpdatePlugin::configurePlugin returns the bool `shapesAreValid(in, nbInputs)` as an int32_t status: true converts to 1, which TensorRT reads as failure, and false to 0 (success)"),
    ("TRT213", "warning", "cpp/plugins/kvUpdatePlugin/kvUpdatePlugin.cpp", 79, 16, "KvUpdatePlugin::getAliasedInput aliases an output to an input (`outputIndex == kOUT_CACHE_IDX ? kIN_CACHE_IDX : -1`), but nothing in the project turns on PreviewFeature::kALIASED_PLUGIN_IO_10_03: builders without it ignore the alias and give the output a buffer of its own"),
    # num_heads is validated (ELLM_CHECK in the constructor), so only alpha's silent default is reported
    ("TRT301", "error", "cpp/kernels/fooKernels.cu", 17, 5, "cudaMalloc (device allocation) allocates on the hot path of FooPlugin::enqueue: FooPlugin::enqueue -> FooPlugin::runFoo -> launchFooKernel -> cudaMalloc"),
    ("TRT302", "error", "cpp/kernels/fooKernels.cu", 24, 5, "cudaStreamSynchronize (stream synchronization) synchronizes on the hot path of BarPlugin::enqueue: BarPlugin::enqueue -> launchBarKernel -> cudaStreamSynchronize"),
    # issue 3: Edge-LLM check macros (cpp/common/checkMacros.h); the ELLM_CHECK in FooPlugin's constructor is
    # caught by the try in FooPluginCreator::createPlugin and not reported
    # one finding per method (issue 24 item 4), at enqueue's definition; the two sites are its related locations
    ("TRT204", "error", "cpp/plugins/fooPlugin/fooPlugin.cpp", 69, 1, "noexcept FooPlugin::enqueue can throw at 2 sites with no try/catch on the way, and an exception leaving it calls std::terminate: ELLM_CHECK (throws std::runtime_error when the condition is false) via FooPlugin::enqueue -> FooPlugin::runFoo -> launchFooTail -> ELLM_CHECK; CUDA_CHECK (throws std::runtime_error on a CUDA error (check::_checkCuda)) via FooPlugin::enqueue -> FooPlugin::runFoo -> launchFooTail -> CUDA_CHECK"),
    ("TRT303", "error", KERNELS, 31, 5, "kernel launch mini::fooKernel<<<...>>> has no stream on the hot path of FooPlugin::enqueue: FooPlugin::enqueue -> FooPlugin::runFoo -> launchFooTail -> mini::fooKernel"),
    # the discarded statuses of the cudaMalloc (17), cudaStreamSynchronize (24) and pageable cudaMemcpyAsync (33)
    # are TRT301/TRT302/TRT305's notes ("also TRT304"): one finding per call, the most specific rule
    ("TRT305", "error", KERNELS, 33, 5, "cudaMemcpyAsync copies from pageable host memory (`scale`, a local variable on the stack) on the hot path of FooPlugin::enqueue: the copy is synchronous with the host and cannot be captured in a CUDA graph: FooPlugin::enqueue -> FooPlugin::runFoo -> launchFooTail -> cudaMemcpyAsync"),
    ("TRT401", "error", "cpp/plugins/barPlugin/barReduce.cu", 1, 1, "barReduce.cu is never compiled: the CMake glob PLUGIN_CPP_SRCS (target NvInfer_edgellm_plugin) walks this directory but collects only 'cpp/plugins/*.cpp', and no other glob or list names this .cu file"),
    ("TRT402", "warning", "tests/python-unittests/test_bar_plugin.py", 1, 1, "none of the 2 tests in tests/python-unittests/test_bar_plugin.py is named by any test list (tests/test_lists/*.yml, tests/test_lists/*.yaml): CI selects tests by list, so this file never runs there; add its tests ('tests/python-unittests/test_bar_plugin.py::test_bar_axis', ...) to a list"),
    ("TRT402", "warning", "tests/python-unittests/test_foo_plugin.py", 13, 1, "test_chunked_prefill is not named by any test list (tests/test_lists/*.yml, tests/test_lists/*.yaml): CI selects tests by list, so it never runs there; add 'tests/python-unittests/test_foo_plugin.py::test_chunked_prefill' to a list"),
    ("TRT403", "error", "tests/test_lists/l0_python_ut.yml", 6, 5, "test-list entry 'tests/python-unittests/test_bar_plugin.py' selects nothing: it is a bare file path, and this project's test selector compares only the part after the last '::' with test names; list its tests as 'tests/python-unittests/test_bar_plugin.py::test_name'"),
    ("TRT403", "error", "tests/test_lists/l0_python_ut.yml", 7, 5, "test-list entry 'tests/python-unittests/test_foo_plugin.py::test_prefil' selects nothing: no test 'test_prefil' in tests/python-unittests/test_foo_plugin.py (closest: test_prefill)"),
    ("TRT404", "warning", "unittests/kernels/ropeKernelTests.cu", 4, 1, "no CMake test target builds ropeKernelTests.cu: its googletest cases (RopeKernel.Matches) never run; add it to a test target's sources (unitTest)"),
]

# opt-in rules (not in the default set, issue 24): reported only when selected
OPT_IN_EXPECTED = [
    ("TRT212", "warning", "cpp/plugins/fooPlugin/fooPlugin.cpp", 119, 20, "FooPluginCreator::createPlugin creates FooPlugin without passing it the creator's namespace (no setPluginNamespace call, no namespace constructor argument): FooPlugin::getPluginNamespace() returns its own member, so the engine records the wrong namespace"),
    # an invariant assert (axis >= 0) below enqueue: TRT215, no longer TRT205 (which reports aborts on a runtime status)
    ("TRT215", "info", KERNELS, 38, 5, "1 check in BarPlugin can end the process (assert(axis >= 0) in BarPlugin::enqueue via checkBarAxis, an invariant), where a failure could be an error status TensorRT reports"),
    ("TRT214", "warning", "cpp/plugins/fooPlugin/fooPlugin.cpp", 115, 1, "FooPluginCreator::createPlugin silently falls back to defaults for fields FooPlugin serializes (so they are required at runtime): alpha -> 1.F"),
]


def test_fixture_project_findings_exact():
    settings = load_settings(FIXTURE)
    res = run(settings, jobs=1, use_cache=False)
    assert res.profile.name == "edgellm"
    got = sorted((d.code, d.severity.value, d.span.path, d.span.line, d.span.col, d.message) for d in res.diagnostics)
    assert got == sorted(EXPECTED), findings_diff(got, EXPECTED)


def test_fixture_project_opt_in_rules_report_when_selected():
    settings = load_settings(FIXTURE)
    settings.extend_select = ["TRT212", "TRT214", "TRT215"]
    res = run(settings, jobs=1, use_cache=False)
    got = sorted((d.code, d.severity.value, d.span.path, d.span.line, d.span.col, d.message) for d in res.diagnostics)
    assert got == sorted(EXPECTED + OPT_IN_EXPECTED), findings_diff(got, EXPECTED + OPT_IN_EXPECTED)


def findings_diff(got: list, expected: list) -> str:
    """What a fixture run found that was not expected, and what it missed (a readable assertion message)."""
    missing = [e for e in expected if e not in got]
    unexpected = [g for g in got if g not in expected]
    return "missing:\n" + "\n".join(map(repr, missing)) + "\nunexpected:\n" + "\n".join(map(repr, unexpected))


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
