"""rules/cpp_behaviour.yaml: macro / function behaviours and method temperatures, extended by a user's pack."""

from __future__ import annotations

import pytest

from tests.helpers import check_project, write_project
from trtlint.checks.examples.hotpath import plugin_cpp
from trtlint.config.settings import ConfigError
from trtlint.config.packs import load_packs


def test_shipped_defaults_match_the_real_macro_definitions():
    p = load_packs()
    beh = {e.name: e.behaviour for e in p.macros}
    # TensorRT Edge-LLM cpp/common/checkMacros.h
    assert beh["ELLM_CHECK"] == beh["CUDA_CHECK"] == "throw"
    # TensorRT OSS plugin/vc/checkMacrosPlugin.h, plugin/common/{checkMacrosPlugin,plugin}.h
    for m in ("PLUGIN_VALIDATE", "PLUGIN_ERROR", "PLUGIN_CUASSERT", "PLUGIN_CUBLASASSERT", "PLUGIN_CUDNNASSERT"):
        assert beh[m] == "throw", m
    for m in ("PLUGIN_ASSERT", "PLUGIN_FAIL", "PLUGIN_CHECK"):  # reportAssertion / exit(EXIT_FAILURE)
        assert beh[m] == "exit", m
    for m in ("PLUGIN_CHECK_CUDA", "CSC", "ASSERT_PARAM", "PLUGIN_API_CHECK"):
        assert beh[m] == "status", m
    assert beh["TORCHTRT_ASSERT"] == beh["TORCHTRT_CHECK"] == "throw"  # Torch-TensorRT core/util/macros.h
    assert p.temperature("enqueue", "v2") == "hot"
    assert p.temperature("setTactic", "v3") == "hot"
    assert p.temperature("onShapeChange", "v3") == "warm"
    assert p.temperature("configurePlugin", "v2dynext") == "warm"
    assert p.temperature("configurePlugin", "v3") == "cold"  # build time only
    assert p.temperature("getWorkspaceSize", "v3") == "warm"


def test_bad_behaviour_names_file_and_key(tmp_path):
    pack = tmp_path / "extra.yaml"
    pack.write_text("version: 1\nmacros:\n  - {name: MY_CHECK, behaviour: explode, what: x}\n")
    with pytest.raises(ConfigError, match=r"extra.yaml: key 'macros.0.behaviour'"):
        load_packs([pack])
    pack.write_text("version: 1\ntemperatures:\n  - {method: enqueue, temperature: tepid}\n")
    with pytest.raises(ConfigError, match=r"extra.yaml: key 'temperatures.0.temperature'"):
        load_packs([pack])


_MY_CHECK = '#include "myChecks.h"'


def _sites(d):
    """A TRT204 finding's throw sites (its related locations): (line, what throws)."""
    return [(r.span.line, r.message.split(": ")[0]) for r in d.related]


def test_user_pack_adds_a_throwing_macro_whose_definition_is_not_visible(tmp_path):
    # myChecks.h is not in the tree (an SDK header): MY_CHECK is only known from the user's pack
    write_project(
        tmp_path,
        {
            "rules/mine.yaml": "version: 1\nmacros:\n  - {name: MY_CHECK, behaviour: throw, what: throws MyError}\n",
            "p/foo.cpp": plugin_cpp("    MY_CHECK(inputs[0] != nullptr);", _MY_CHECK),
        },
    )
    assert check_project(tmp_path, select=["TRT204"]).diagnostics == []
    res = check_project(tmp_path, select=["TRT204"], config={"rule-packs": ["rules/mine.yaml"]})
    # TRT204 is one finding per method, at its definition; the throw site is a related location
    assert [(d.span.line, _sites(d)) for d in res.diagnostics] == [(12, [(15, "MY_CHECK (throws MyError)")])]


def test_user_pack_overrides_a_shipped_macro(tmp_path):
    # a project whose own CUDA_CHECK hands the status to a function the run cannot see into (declared, defined
    # in a library): the shipped pack's word (CUDA_CHECK throws) stands until the user's pack says otherwise
    macro = ("int reportStatus(cudaError_t e);\n"
             "#define CUDA_CHECK(x) do { cudaError_t e = x; if (e != cudaSuccess) { reportStatus(e); } } while (0)")
    write_project(
        tmp_path,
        {
            "rules/mine.yaml": "version: 1\nmacros:\n  - {name: CUDA_CHECK, behaviour: status, what: returns the error}\n",
            "p/foo.cpp": plugin_cpp("    CUDA_CHECK(cudaMemsetAsync(outputs[0], 0, 4, stream));", macro),
        },
    )
    assert [d.code for d in check_project(tmp_path, select=["TRT204"]).diagnostics] == ["TRT204"]
    assert check_project(tmp_path, select=["TRT204"], config={"rule-packs": ["rules/mine.yaml"]}).diagnostics == []


def test_a_visible_definition_that_neither_throws_nor_exits_decides_without_a_pack(tmp_path):
    # the project's own CUDA_CHECK visibly returns the status: as compiled it does not throw, whatever the
    # shipped pack says of another codebase's CUDA_CHECK
    macro = "#define CUDA_CHECK(x) do { cudaError_t e = x; if (e != cudaSuccess) { return e; } } while (0)"
    write_project(tmp_path, {"p/foo.cpp": plugin_cpp("    CUDA_CHECK(cudaMemsetAsync(outputs[0], 0, 4, stream));", macro)})
    assert check_project(tmp_path, select=["TRT204"]).diagnostics == []


def test_unknown_throwing_macro_is_reported_at_its_use_naming_it(tmp_path):
    macro = '#include <stdexcept>\n#define REQUIRE(c) do { if (!(c)) { throw std::invalid_argument(#c); } } while (0)'
    write_project(tmp_path, {"p/foo.cpp": plugin_cpp("    REQUIRE(inputs[0] != nullptr);", macro)})
    res = check_project(tmp_path, select=["TRT204"])
    assert [(d.span.line, _sites(d)) for d in res.diagnostics] == [
        (13, [(16, "`throw std::invalid_argument` (expanded from macro REQUIRE)")])
    ]


def test_hot_method_gives_the_rules_own_severity(tmp_path):
    # the hot path lowers nothing: TRT304's own severity (warning: a discarded status is a risk) stands, and a
    # device allocation there is TRT301's error
    body = "    cudaMemsetAsync(outputs[0], 0, 4, stream);\n    void* p = nullptr;\n    cudaMalloc(&p, 16);"
    write_project(tmp_path, {"p/foo.cpp": plugin_cpp(body)})
    got = {d.code: d for d in check_project(tmp_path, select=["TRT304", "TRT301"]).diagnostics}
    assert got["TRT304"].severity.value == "warning" and "hot path of FooPlugin::enqueue" in got["TRT304"].message
    assert got["TRT301"].severity.value == "error"


def test_throw_in_a_lazily_parsed_helper_reached_from_a_cold_method(tmp_path):
    # helpers/shape.cpp holds no plugin marker, so it is parsed only when the call graph needs it; the call comes
    # from a cold interface method (getNbOutputs), not from enqueue
    plugin = plugin_cpp("    return 0;", "int checkedRank(int r);")
    plugin = plugin.replace(
        "    void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;",
        "    void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;\n"
        "    int32_t getNbOutputs() const noexcept override { return checkedRank(2); }",
    )
    write_project(
        tmp_path,
        {
            "p/foo.cpp": plugin,
            "helpers/shape.cpp": '#include <stdexcept>\nint checkedRank(int r)\n{\n    if (r < 1)\n    {\n'
            '        throw std::invalid_argument("rank");\n    }\n    return r;\n}\n',
        },
    )
    res = check_project(tmp_path, select=["TRT204"])
    # the finding is at the interface method (where the try goes); the throw in the helper is its related location
    (d,) = res.diagnostics
    assert (d.span.path, d.span.line) == ("p/foo.cpp", 11)
    assert [(r.span.path, r.span.line) for r in d.related] == [("helpers/shape.cpp", 6)]
    assert "FooPlugin::getNbOutputs -> checkedRank -> throw" in d.message and "getNbOutputs -> checkedRank" in d.related[0].message
