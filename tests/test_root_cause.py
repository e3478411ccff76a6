"""One finding per root cause (issue 24 item 4), through the real pipeline (real libclang): TRT204 is one finding
per noexcept interface method with its throw sites as related locations (SARIF relatedLocations); findings of
several rules on one call keep the most specific (Rule.supersedes) with a note naming the others; a call or throw
a macro expands twice is one site."""

from __future__ import annotations

import json

from trtlint.checks.examples.hotpath import plugin_cpp
from trtlint.checks.registry import all_rules, find_rule
from trtlint.report import ReportContext, render

from .helpers import check_project, write_project
from .sarif_schema import validate_sarif

_THROWS = """#include <stdexcept>
#define ELLM_CHECK(cond, msg) do { if (!(cond)) { throw std::runtime_error(msg); } } while (0)
static void checkShape(int n)
{
    ELLM_CHECK(n > 0, "empty input");
}"""
# the helpers start on line 5 (ELLM_CHECK in checkShape: line 9); enqueue is defined on line 17, its body from 20
_BODY = '    checkShape(1);\n    ELLM_CHECK(inputs[0] != nullptr, "no input");\n    throw std::runtime_error("unsupported");'
_ENQUEUE = 17


def _codes(res):
    return [(d.code, d.span.line) for d in res.diagnostics]


def test_throw_sites_are_related_locations_of_one_finding_and_valid_sarif(tmp_path):
    write_project(tmp_path, {"p/foo.cpp": plugin_cpp(_BODY, _THROWS)})
    res = check_project(tmp_path, select=["TRT204"])
    (d,) = res.diagnostics
    assert (d.span.path, d.span.line, d.symbol) == ("p/foo.cpp", _ENQUEUE, "FooPlugin::enqueue")
    assert "noexcept FooPlugin::enqueue can throw at 3 sites" in d.message
    # every site, in walk order (the method's own body first), with its chain
    assert [(r.span.line, r.message) for r in d.related] == [
        (21, "ELLM_CHECK (throws std::runtime_error when the condition is false): FooPlugin::enqueue -> ELLM_CHECK"),
        (22, "`throw std::runtime_error`: FooPlugin::enqueue -> throw"),
        (9, "ELLM_CHECK (throws std::runtime_error when the condition is false): "
             "FooPlugin::enqueue -> checkShape -> ELLM_CHECK"),
    ]
    doc = json.loads(render("sarif", res.diagnostics, ReportContext(root=tmp_path, rules=[find_rule("TRT204")])))
    (result,) = doc["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == _ENQUEUE
    assert [r["physicalLocation"]["region"]["startLine"] for r in result["relatedLocations"]] == [21, 22, 9]
    validate_sarif(doc)


def test_a_suppression_applies_at_the_method_not_at_a_throw_site(tmp_path):
    src = plugin_cpp(_BODY, _THROWS)
    at_method = src.replace("int32_t FooPlugin::enqueue(", "// trtlint: ignore[TRT204]\nint32_t FooPlugin::enqueue(", 1)
    write_project(tmp_path, {"p/foo.cpp": at_method})
    assert _codes(check_project(tmp_path, select=["TRT204", "TRT002"])) == []
    # on a throw site it silences nothing now: the method's finding stays and the comment is reported unused
    at_site = src.replace('    throw std::runtime_error("unsupported");',
                          '    throw std::runtime_error("unsupported"); // trtlint: ignore[TRT204]', 1)
    write_project(tmp_path, {"p/foo.cpp": at_site})
    assert _codes(check_project(tmp_path, select=["TRT204", "TRT002"])) == [("TRT204", _ENQUEUE), ("TRT002", 22)]


_CALLS = "    cudaDeviceSynchronize();\n    void* q;\n    cudaMalloc(&q, 16);\n    cudaMemsetAsync(outputs[0], 0, 16, stream);"
_HOT = ["TRT301", "TRT302", "TRT303", "TRT304", "TRT305"]


def test_several_rules_on_one_call_keep_the_most_specific_with_a_note(tmp_path):
    write_project(tmp_path, {"p/foo.cpp": plugin_cpp(_CALLS)})
    res = check_project(tmp_path, select=_HOT)
    assert _codes(res) == [("TRT302", 15), ("TRT301", 17), ("TRT304", 18)]
    sync, alloc, memset = res.diagnostics
    assert sync.notes == ("also TRT304 unchecked-cuda-status: the status of cudaDeviceSynchronize (CUDA runtime) is "
                          "discarded on the hot path of FooPlugin::enqueue: FooPlugin::enqueue -> cudaDeviceSynchronize",)
    assert [n.split(":")[0] for n in alloc.notes] == ["also TRT304 unchecked-cuda-status"]
    assert memset.notes == ()
    # only the less specific rule selected: it reports every call
    assert _codes(check_project(tmp_path, select=["TRT304"])) == [("TRT304", 15), ("TRT304", 17), ("TRT304", 18)]


def test_a_finding_taken_over_passes_on_the_other_sites_it_counted(tmp_path):
    # the two syncs' discarded statuses are one TRT304 finding (one API in one function), at the first; TRT302 takes
    # that call over: the second call stays named on the finding that took it, with its rule
    body = "    cudaDeviceSynchronize();\n    int n = 0;\n    cudaDeviceSynchronize();"
    write_project(tmp_path, {"p/foo.cpp": plugin_cpp(body)})
    assert [(d.code, d.span.line, d.message.partition(": ")[0]) for d in check_project(tmp_path, select=["TRT304"]).diagnostics] == [
        ("TRT304", 15, "the statuses of 2 calls of cudaDeviceSynchronize (CUDA runtime) are discarded on the hot path "
                       "of FooPlugin::enqueue")]
    res = check_project(tmp_path, select=_HOT)
    assert _codes(res) == [("TRT302", 15), ("TRT302", 17)]
    first = res.diagnostics[0]
    assert [n.split(":")[0] for n in first.notes] == ["also TRT304 unchecked-cuda-status"]
    assert [(r.span.line, r.message) for r in first.related if "here too" in r.message] == [
        (17, "TRT304: the status of cudaDeviceSynchronize is discarded here too")]


def test_a_suppressed_or_less_severe_finding_takes_nothing_over(tmp_path):
    src = plugin_cpp(_CALLS).replace("    cudaDeviceSynchronize();", "    cudaDeviceSynchronize(); // trtlint: ignore[TRT302]")
    write_project(tmp_path, {"p/foo.cpp": src})
    # the deliberate synchronization is suppressed: its unchecked status is still a finding
    assert _codes(check_project(tmp_path, select=_HOT)) == [("TRT304", 15), ("TRT301", 17), ("TRT304", 18)]
    write_project(tmp_path, {"p/foo.cpp": plugin_cpp(_CALLS)})
    res = check_project(tmp_path, select=_HOT, config={"severity": {"TRT302": "info"}})
    assert [(d.code, d.span.line, d.severity.value) for d in res.diagnostics if d.span.line == 15] == [
        ("TRT302", 15, "info"), ("TRT304", 15, "warning")]


def test_a_macro_expanding_a_throw_and_a_call_twice_is_one_site(tmp_path):
    macros = ('#include <stdexcept>\n'
              '#define REQUIRE2(c) do { if (!(c)) { throw std::invalid_argument(#c); } '
              'if (!(c)) { throw std::invalid_argument(#c); } } while (0)\n'
              '#define TWICE(x) do { x; x; } while (0)')
    body = "    REQUIRE2(inputs[0] != nullptr);\n    TWICE(cudaDeviceSynchronize());"
    write_project(tmp_path, {"p/foo.cu": plugin_cpp(body, macros)})
    res = check_project(tmp_path, select=["TRT204", "TRT302", "TRT304"])
    assert _codes(res) == [("TRT204", 14), ("TRT302", 18)]
    throw, sync = res.diagnostics
    assert "can throw at 1 site " in throw.message and [r.span.line for r in throw.related] == [17]
    assert [n.split(":")[0] for n in sync.notes] == ["also TRT304 unchecked-cuda-status"]


def test_supersedes_names_rules_and_has_no_cycle():
    codes = {r.code for r in all_rules()}
    for rule in all_rules():
        for c in rule.supersedes:
            assert c in codes and c != rule.code, (rule.code, c)
            assert rule.code not in find_rule(c).supersedes, (rule.code, c)
    assert find_rule("TRT302").supersedes == ("TRT304",)


_BASE = """#include <NvInferRuntime.h>
#include <stdexcept>
using namespace nvinfer1;
class BasePlugin : public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime
{
public:
    int32_t getNbOutputs() const noexcept override;
};
int32_t BasePlugin::getNbOutputs() const noexcept
{
    throw std::runtime_error("no outputs");
}
class APlugin : public BasePlugin
{
};
class BPlugin : public BasePlugin
{
};
"""


def test_a_base_class_method_is_one_finding_naming_the_plugins_that_inherit_it(tmp_path):
    write_project(tmp_path, {"p/base.cpp": _BASE})
    (d,) = check_project(tmp_path, select=["TRT204"]).diagnostics
    assert d.span.line == 9 and d.message.startswith("noexcept BasePlugin::getNbOutputs (inherited by APlugin, BPlugin) "
                                                     "can throw at 1 site")
