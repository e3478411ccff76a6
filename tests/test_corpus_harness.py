"""bench/corpus.py (the corpus harness): its text-only census and its mutation generator on a fixture tree of our
own (tests/fixtures/corpus_mini: a plugin, its creator and registration, a kernel launched from enqueue, a Python
make_node and gs.Node emission and a trt.PluginField list), and seeded edits judged by real trtlint runs."""

from __future__ import annotations

import dataclasses
import shutil
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))
import corpus  # noqa: E402
import corpus_census  # noqa: E402
import corpus_mutate  # noqa: E402

FIXTURE = Path(__file__).parent / "fixtures" / "corpus_mini"


def keys(items):
    return sorted((i.kind, i.file, i.line, i.name) for i in items)


def test_census_lists_every_place_of_the_contract():
    assert keys(corpus_census.census(FIXTURE)) == sorted([
        ("plugin-class", "plugin/scalePlugin.h", 14, "ScalePlugin"),
        ("creator-class", "plugin/scalePlugin.h", 32, "ScalePluginCreator"),
        ("registration", "plugin/scalePlugin.cpp", 88, "ScalePluginCreator"),
        ("field", "plugin/scalePlugin.cpp", 55, "scale"),
        ("lookup", "python/build.py", 7, "ScalePlugin"),
        ("field", "python/build.py", 8, "scale"),
        ("emission", "python/export.py", 7, "ScalePlugin"),
        ("emission", "python/export.py", 11, "ScalePlugin"),
    ])


def test_census_follows_derived_classes_project_macros_and_op_variables(tmp_path):
    (tmp_path / "base.h").write_text(
        "struct BaseCreator : public nvinfer1::IPluginCreatorV3One {};\n"
        "template <typename P> class LayerBase : public IPluginV2IOExt {};\n"
        "#define MY_REGISTER(n) REGISTER_TENSORRT_PLUGIN(n##Creator)\n"
        "#define MY_REGISTER2(n) MY_REGISTER(n)\n"
    )
    (tmp_path / "a.cpp").write_text(
        '#include "base.h"\n'
        "class ALayer final : public LayerBase<ALayer> {};\n"
        "class ALayerCreator : public BaseCreator {};\n"
        "// REGISTER_TENSORRT_PLUGIN(Commented);\n"
        "/* class Old : public IPluginV2 {}; */\n"
        "MY_REGISTER2(ALayer);\n"
        'auto* c = getPluginRegistry()->getPluginCreator("ALayer", "1");\n'
    )
    (tmp_path / "g.py").write_text(
        "def f(graph, x):\n"
        '    op = "MyNms_TRT"\n'
        "    graph.layer(op=op, inputs=[x], outputs=[x])\n"
        '    graph.layer(op="Add", inputs=[x], outputs=[x])\n'
        '    for c in trt.get_plugin_registry().plugin_creator_list:\n'
        '        if c.name == "ALayer":\n'
        "            return c\n"
    )
    assert keys(corpus_census.census(tmp_path)) == sorted([
        ("creator-base", "base.h", 1, "BaseCreator"),
        ("plugin-base", "base.h", 2, "LayerBase"),
        ("plugin-class", "a.cpp", 2, "ALayer"),
        ("creator-class", "a.cpp", 3, "ALayerCreator"),
        ("registration", "a.cpp", 6, "ALayer"),
        ("lookup", "a.cpp", 7, "ALayer"),
        ("emission", "g.py", 3, "MyNms_TRT"),
        ("lookup", "g.py", 5, "ALayer"),
    ])


def test_generator_gives_each_class_its_one_line_edit():
    muts = corpus_mutate.generate(FIXTURE, corpus_census.census(FIXTURE))
    got = {(m.cls, m.file, m.line): (m.edits[0][2].strip(), m.expected) for m in muts}
    assert got[("name-drift-plugin", "plugin/scalePlugin.cpp", 21)] == ('return "CorpusDriftScalePlugin";', ("TRT101",))
    assert got[("name-drift-creator", "plugin/scalePlugin.cpp", 62)] == ('return "CorpusDriftScalePluginCreator";', ("TRT101",))
    assert got[("version-drift-plugin", "plugin/scalePlugin.cpp", 26)] == ('return "987";', ("TRT102",))
    assert got[("version-drift-creator", "plugin/scalePlugin.cpp", 67)][1] == ("TRT102",)
    assert got[("field-rename-creator", "plugin/scalePlugin.cpp", 55)][0].startswith('mAttrs.emplace_back(PluginField("scaleCorpus"')
    assert got[("alloc-in-enqueue", "plugin/scalePlugin.cpp", 48)][0].startswith("{ void* CorpusP = nullptr; cudaMalloc(")
    assert got[("sync-in-enqueue", "plugin/scalePlugin.cpp", 48)] == ("{ cudaDeviceSynchronize();", ("TRT302",))
    assert "cudaMemcpyDeviceToHost" in got[("memcpy-in-enqueue", "plugin/scalePlugin.cpp", 48)][0]
    assert got[("sync-in-callee", "plugin/scaleKernel.cu", 15)] == ("{ cudaDeviceSynchronize();", ("TRT302",))
    assert got[("alloc-in-callee", "plugin/scaleKernel.cu", 15)][1] == ("TRT301",)
    assert "cudaMemcpyDeviceToHost" in got[("memcpy-in-callee", "plugin/scaleKernel.cu", 15)][0]
    assert got[("default-stream", "plugin/scaleKernel.cu", 16)] == (
        "scaleKernel<<<(n + 127) / 128, 128>>>(in, out, n, scale);", ("TRT303",))
    assert got[("throw-in-noexcept", "plugin/scalePlugin.cpp", 30)] == ("{ throw 1;", ("TRT204",))
    assert got[("serialize-drop", "plugin/scalePlugin.cpp", 42)] == ("", ("TRT202",))
    assert got[("route-name-drift", "python/export.py", 11)][0].startswith('node = gs.Node(op="ScalePluginCorpus"')
    assert got[("route-version-drift", "python/build.py", 7)][0].endswith('get_plugin_creator("ScalePlugin", "987", "")')
    assert got[("route-field-rename", "python/export.py", 7)][0].endswith('domain="demo", scaleCorpus=2.0)')
    assert "trt.PluginFieldType.INT32" in got[("field-type-change", "python/build.py", 8)][0]
    # a route names the plugin: renaming its shared constant would be a true drift, so no negative is made
    assert not [m for m in muts if m.negative]
    # every edit replaces one line by one line: findings elsewhere keep their lines
    assert all("\n" not in new for m in muts for _f, _ln, new in m.edits)


def test_generator_makes_a_consistent_rename_where_no_route_names_the_plugin(tmp_path):
    shutil.copytree(FIXTURE / "plugin", tmp_path / "plugin")
    (neg,) = [m for m in corpus_mutate.generate(tmp_path, corpus_census.census(tmp_path)) if m.negative]
    assert (neg.cls, neg.edits) == ("consistent-rename", [("plugin/scalePlugin.h", 9, 'static char const* kSCALE_NAME{"ScalePluginCorpus"};')])


def test_a_drift_of_a_plugin_nothing_makes_and_no_creator_names_is_not_judgeable(tmp_path):
    """A binding's trampoline (a plugin class returning a name Python sets at run time): no creator beside it, and
    no code of the tree makes one (``new``). Its name and version drifts have no other side for a rule to see: the
    harness drops them with their reason. The same class made by a factory elsewhere (``new Tramp(...)``) keeps them."""
    tramp = ("class Tramp : public IPluginV2DynamicExt\n{\npublic:\n"
             "    char const* getPluginType() const noexcept override\n    {\n        return mType.c_str();\n    }\n"
             "    char const* getPluginVersion() const noexcept override\n    {\n        return mVersion.c_str();\n    }\n"
             "    std::string mType;\n    std::string mVersion;\n};\n")
    (tmp_path / "bind").mkdir()
    (tmp_path / "bind" / "tramp.cpp").write_text(tramp)
    muts = corpus_mutate.generate(tmp_path, corpus_census.census(tmp_path))
    kept, dropped = corpus_mutate.judgeable_routes(muts, None)
    assert sorted((m.cls, m.why) for m in dropped) == [("name-drift-plugin", "plugin-no-creator-makes"),
                                                       ("version-drift-plugin", "plugin-no-creator-makes")]
    assert not [m for m in kept if "drift" in m.cls]
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "factory.cpp").write_text("IPluginV2* make() { return new Tramp(); }\n")
    muts = corpus_mutate.generate(tmp_path, corpus_census.census(tmp_path))
    kept, dropped = corpus_mutate.judgeable_routes(muts, None)
    assert not dropped and sorted(m.cls for m in kept if "drift" in m.cls) == ["name-drift-plugin", "version-drift-plugin"]


def test_batches_never_put_two_edits_of_one_file_or_subject_together():
    muts = corpus_mutate.generate(FIXTURE, corpus_census.census(FIXTURE))
    groups = corpus_mutate.batches(muts)
    assert sorted(id(m) for g in groups for m in g) == sorted(id(m) for m in muts)
    for g in groups:
        files = [f for m in g for f in m.involved]
        assert len(files) == len(set(files))
        assert len({m.negative for m in g}) == 1


def test_seeded_edits_are_judged_by_a_real_run(tmp_path):
    """One run with two non-interacting edits (a launch's stream dropped in the .cu, a lookup's version drifted in
    Python): each is found by its rule; then a consistent rename (plugin tree alone) gives no new finding."""
    root = tmp_path / "t"
    shutil.copytree(FIXTURE, root)
    muts = corpus_mutate.generate(root, corpus_census.census(root))
    pick = [m for m in muts if m.cls in ("default-stream", "route-version-drift")]
    assert len(pick) == 2 and not (pick[0].involved & pick[1].involved)
    base, _err, _dt = corpus.check_run(root, 1)
    saved = corpus_mutate.apply(root, [e for m in pick for e in m.edits])
    rep, _err, _dt = corpus.check_run(root, 1)
    corpus_mutate.restore(root, saved)
    rows = corpus_mutate.judge(pick, base["diagnostics"], rep)
    assert [(r["class"], r["found"]) for r in rows] == [(m.cls, True) for m in pick], rows
    assert (root / "plugin/scaleKernel.cu").read_text() == (FIXTURE / "plugin/scaleKernel.cu").read_text()

    shutil.rmtree(root / "python")
    (neg,) = [m for m in corpus_mutate.generate(root, corpus_census.census(root)) if m.negative]
    base, _err, _dt = corpus.check_run(root, 1)
    saved = corpus_mutate.apply(root, neg.edits)
    rep, _err, _dt = corpus.check_run(root, 1)
    corpus_mutate.restore(root, saved)
    (row,) = corpus_mutate.judge([neg], base["diagnostics"], rep)
    assert row["flagged"] is False, row


def test_comparison_calls_an_item_indexed_reported_or_unindexed():
    it = corpus_census.Item
    items = [it("plugin-class", "a/p.h", 3, "P"), it("emission", "x.py", 10, "P"), it("lookup", "y.py", 4, "P"),
             it("creator-class", "b/c.h", 2, "C")]
    dump = {"plugins": [{"class": "ns::P", "at": "a/p.h:3", "fields": [], "serialized": [], "registered": []}],
            "creators": [], "emissions": [{"op": "P", "at": "x.py:11", "attrs": []}], "lookup_sites": []}
    report = {"diagnostics": [{"code": "TRT004", "message": "class C did not resolve", "location": {"path": "b/c.h", "line": 2}}],
              "summary": {"analysis": {"plugins": 1, "creators": 0, "partly_analysed_units": []}}}
    status, unindexed = corpus.compare(items, dump, report, "")
    assert status == ["indexed", "indexed", "unindexed", "reported"]
    assert [u.file for u in unindexed] == ["y.py"]
    # the check analysed no class: the whole-tree join's classes do not count; a class whose header a partly
    # analysed unit could not include is reported, by that include
    report["summary"]["analysis"] = {"plugins": 0, "creators": 0, "partly_analysed_units": [
        {"unit": "a/p.cpp", "missing_includes": [{"name": "p.h", "path": "a/p.cpp", "line": 1}]}]}
    items[0] = it("plugin-class", "a/p.h", 3, "P")
    items.append(it("plugin-class", "a/q.h", 3, "Q"))
    items.append(it("field", "a/p.cpp", 9, "alpha"))  # in the partly analysed unit itself
    dump["plugins"].append({"class": "Q", "at": "a/q.h:3", "fields": [], "serialized": [], "registered": []})
    status, _ = corpus.compare(items, dump, report, "")
    assert status == ["reported", "indexed", "unindexed", "reported", "unindexed", "reported"]


def test_census_skips_tensorrt_api_headers_and_the_comparison_reads_model_nodes(tmp_path):
    # a vendored NvInferRuntime.h declares registerCreator and PluginField: TensorRT's API, not the project's; a
    # custom op of an ONNX model is indexed when --dump-index lists it among the model nodes
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "NvInferRuntimeCommon.h").write_text(
        "class IPluginRegistry {\n public:\n  virtual bool registerCreator(IPluginCreator& creator) = 0;\n};\n"
        "struct PluginField { PluginField(char const* name = nullptr) {} };\n")
    (tmp_path / "mine.h").write_text(
        "class MyRegistry {\n public:\n  bool registerCreator(IPluginCreator& creator);\n};\n")
    items = corpus_census.census(tmp_path)
    assert {i.file for i in items} == {"mine.h"}, items
    it = corpus_census.Item("onnx-node", "models/m.onnx", 0, "MyOp")
    dump = {"plugins": [], "creators": [], "emissions": [], "lookup_sites": [],
            "model_nodes": [{"op": "MyOp", "domain": "", "node": "main/n0", "at": "models/m.onnx"}]}
    report = {"diagnostics": [], "summary": {"analysis": {"plugins": 1, "creators": 0}}}
    assert corpus.compare([it], dump, report, "")[0] == ["indexed"]
    dump["model_nodes"] = []
    assert corpus.compare([it], dump, report, "")[0] == ["unindexed"]


def test_census_counts_a_registrar_templates_registrations_at_its_macros_uses(tmp_path):
    # TensorRT's own REGISTER_TENSORRT_PLUGIN shape in a project's copy: the class template registers an instance of
    # its parameter; the macro instantiating it is a registration macro; the template's own call is no registration
    (tmp_path / "plugins.h").write_text(
        "template <typename T>\nclass MyRegistrar {\n public:\n  MyRegistrar() {\n"
        "    getPluginRegistry()->registerCreator(instance, \"ns\");\n  }\n private:\n  T instance{};\n};\n"
        "#define REGISTER_MY_PLUGIN(name) \\\n  static MyRegistrar<name> myRegistrar##name {}\n")
    (tmp_path / "a.cpp").write_text('#include "plugins.h"\nREGISTER_MY_PLUGIN(FooCreator);\n')
    regs = [(i.file, i.line, i.name) for i in corpus_census.census(tmp_path) if i.kind == "registration"]
    assert regs == [("a.cpp", 2, "FooCreator")], regs
def test_a_field_built_in_another_folder_than_its_creators_class_is_indexed_by_the_file_it_is_built_in():
    """A creator declared in a header of one folder (ops/c.hpp) whose constructor builds its fields in a .cpp of
    another (ops/plugins/c.cpp, open-mmlab/mmcv's TensorRT plugins): --dump-index says where each field is built,
    and the comparison finds the census's field there (keyed by the class's folder alone, all 29 of mmcv's fields
    were 'silently unindexed' though the run held every one)."""
    it = corpus_census.Item
    items = [it("field", "ops/plugins/c.cpp", 9, "mode"), it("field", "ops/plugins/c.cpp", 10, "dim"),
             it("field", "ops/plugins/d.cpp", 9, "mode")]
    dump = {"plugins": [], "emissions": [], "lookup_sites": [],
            "creators": [{"class": "C", "at": "ops/c.hpp:5", "fields": ["mode:None", "dim:kINT32"], "serialized": [],
                          "registered": [], "field_sites": [{"name": "mode", "at": "ops/plugins/c.cpp:9"},
                                                            {"name": "dim", "at": "ops/plugins/c.cpp:10"}]}]}
    report = {"diagnostics": [], "summary": {"analysis": {"plugins": 0, "creators": 1, "partly_analysed_units": []}}}
    status, _ = corpus.compare(items, dump, report, "")
    assert status == ["indexed", "indexed", "unindexed"]


def test_dump_index_says_where_each_declared_field_is_built(tmp_path):
    """--dump-index lists each creator field's site, a field given by its name only (`PluginField("mode")`: no
    type, TensorRT's defaults) among them, with its type unknown."""
    import json
    import os
    import subprocess
    import sys

    from trtlint.checks.examples.contract import creator_cpp

    src = creator_cpp("FooPlugin", fields=(("alpha", "kFLOAT32"), ("mode", "kINT32")), reads=("alpha", "mode")).replace(
        'PluginField("mode", nullptr, PluginFieldType::kINT32, 1)', 'PluginField("mode")')
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "foo.cpp").write_text(src, encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "trtlint", "check", str(tmp_path), "--root", str(tmp_path), "--no-progress",
                        "--no-cache", "--dump-index"], capture_output=True, text=True, cwd=str(tmp_path),
                       env=dict(os.environ, PYTHONPATH=str(BENCH.parent)))
    (c,) = json.loads(p.stdout)["creators"]
    assert c["fields"] == ["alpha:kFLOAT32", "mode:None"], c
    assert c["field_sites"] == [{"name": "alpha", "at": "plugins/foo.cpp:15"}, {"name": "mode", "at": "plugins/foo.cpp:16"}], c
    assert c["reads"] == ["alpha", "mode"], c  # what createPlugin reads by name (bench/corpus.py's named_field_names)


def test_a_consistent_rename_is_not_flagged_for_a_finding_that_only_renames():
    """A finding of the unmutated run that names the plugin (a duplicate registration) names the renamed plugin
    after a consistent rename: the same finding, not a new one. A seeded drift is judged on the raw messages."""
    def diag(msg):
        return {"code": "TRT108", "message": msg, "location": {"path": "p/a.cpp", "line": 32}, "related": []}

    base = [diag("'Nms_TRT' version '1' is registered twice")]
    rep = {"diagnostics": [diag("'Nms_TRTCorpus' version '1' is registered twice")]}
    neg = corpus_mutate.Mutation("consistent-rename", [("p/a.cpp", 29, "")], (), "Nms", {"p/a.cpp"}, negative=True)
    pos = corpus_mutate.Mutation("name-drift-plugin", [("p/a.cpp", 29, "")], ("TRT108",), "Nms", {"p/a.cpp"})
    assert corpus_mutate.judge([neg], base, rep)[0]["flagged"] is False
    assert corpus_mutate.judge([pos], base, rep)[0]["found"] is True
    assert corpus_mutate.judge([neg], base, {"diagnostics": base + [dict(diag("x"), code="TRT101")]})[0]["flagged"] is True


def test_triage_sample_is_reproducible_and_sorted():
    import corpus_triage

    diags = [{"code": f"TRT{300 + i % 3}", "message": f"m{i}", "location": {"path": f"f{i % 5}.cpp", "line": i}}
             for i in range(40)]
    a = corpus_triage.sample(diags, seed=31, n=20)
    b = corpus_triage.sample(list(reversed(diags)), seed=31, n=20)  # the input order does not matter
    assert a == b and len(a) == 20
    assert a == sorted(a, key=lambda d: (d["code"], d["location"]["path"], d["location"]["line"], d["message"]))
    assert corpus_triage.sample(diags, seed=32, n=20) != a
    assert len(corpus_triage.sample(diags[:3], seed=31, n=20)) == 3  # all when fewer


def test_triage_files_are_checked_and_counted(tmp_path):
    import corpus_triage
    import pytest

    (tmp_path / "a+b.yaml").write_text(
        "tree: a/b\ntrtlint: abc1234\nseed: 31\nfindings_total: 9\nsampled: 3\nitems:\n"
        "  - {rule: TRT205, file: x.cpp, line: 1, verdict: true, why: w}\n"
        "  - {rule: TRT205, file: x.cpp, line: 2, verdict: false, why: misread macro}\n"
        "  - {rule: TRT301, file: y.cu, line: 3, verdict: noise, why: vendored}\n")
    text = corpus_triage.render(corpus_triage.load(tmp_path))
    assert "| a/b | abc1234 | 9 | 3 (31) | 1 | 1 | 1 | 33 % |" in text
    assert "- false: b `x.cpp:2` TRT205: misread macro" in text
    (tmp_path / "c+d.yaml").write_text("tree: c/d\nsampled: 1\nitems:\n  - {rule: TRT1, file: z, line: 1, verdict: '?'}\n")
    with pytest.raises(ValueError, match="verdict '\\?'"):
        corpus_triage.load(tmp_path)
    (tmp_path / "c+d.yaml").write_text("tree: c/d\nsampled: 2\nitems:\n  - {rule: TRT1, file: z, line: 1, verdict: true}\n")
    with pytest.raises(ValueError, match="sampled is 2 but 1 items"):
        corpus_triage.load(tmp_path)


def test_triage_verdicts_are_carried_to_the_current_findings(tmp_path):
    import corpus_triage

    (tmp_path / "a+b.seed7.yaml").write_text(
        "tree: a/b\ntrtlint: abc1234\nseed: 7\nfindings_total: 4\nsampled: 4\nitems:\n"
        "  - {rule: TRT205, file: x.cpp, line: 1, message: m, verdict: true, why: w}\n"
        "  - {rule: TRT205, file: x.cpp, line: 2, message: m, verdict: false, why: w}\n"
        "  - {rule: TRT301, file: y.cu, line: 3, message: m, verdict: noise, why: w}\n"
        "  - {rule: TRT302, file: y.cu, line: 9, message: m, verdict: true, why: w}\n")
    docs = corpus_triage.load(tmp_path)
    now = [{"code": "TRT205", "path": "x.cpp", "line": 1, "message": "m"},
           {"code": "TRT301", "path": "y.cu", "line": 3, "message": "m2"},  # reworded since the triage
           {"code": "TRT302", "path": "y.cu", "line": 10, "message": "m"},  # a moved line is not the judged finding
           {"code": "TRT205", "path": "z.cpp", "line": 5, "message": "m"}]
    rows = corpus_triage.recheck(docs, {"a/b": {"diagnostics": now}, "c/d": {"diagnostics": []}})
    assert len(rows) == 1
    r = rows[0]
    assert r["kept"] == {"true": 1, "false": 0, "noise": 1}
    assert r["gone"] == {"true": 1, "false": 1, "noise": 0}
    assert r["reworded"] == {"true": 0, "false": 0, "noise": 1}
    assert [(it["file"], it["line"]) for it in r["gone_true"]] == [("y.cu", 9)]
    text = corpus_triage.render_recheck(rows)
    assert "| a+b.seed7.yaml (abc1234) | 4 → 4 | 1 / 0 / 1 | 0 / 0 / 1 | 0 / 0 / 0 | 1 / 1 / 0 | 50 % |" in text
    assert "- b `y.cu:9` TRT302" in text
    assert corpus_triage.recheck(docs, {"a/b": {"findings": {}}}) == []  # a result without diagnostics: left out

    # a judged site another finding of the same rule now counts with its own (its `also`) is merged, not gone;
    # the same site named by another rule's finding is not
    now[2] = {"code": "TRT302", "path": "y.cu", "line": 10, "message": "m", "also": [["y.cu", 9]]}
    now[3] = {"code": "TRT301", "path": "z.cpp", "line": 5, "message": "m", "also": [["x.cpp", 2]]}
    r = corpus_triage.recheck(docs, {"a/b": {"diagnostics": now}})[0]
    assert r["merged"] == {"true": 1, "false": 0, "noise": 0}
    assert r["gone"] == {"true": 0, "false": 1, "noise": 0}
    assert r["gone_true"] == []
    assert "| 1 / 0 / 1 | 0 / 0 / 1 | 1 / 0 / 0 | 0 / 1 / 0 | 67 % |" in corpus_triage.render_recheck([r])


def test_a_result_records_the_sites_a_finding_counts_with_its_own():
    import corpus

    d = {"code": "TRT304", "location": {"path": "a.cu", "line": 3}, "related": [
        {"location": {"path": "a.cu", "line": 1}, "message": "FooPlugin::enqueue is defined here"},
        {"location": {"path": "a.cu", "line": 4}, "message": "the status of cudaFree is discarded here too"},
        {"location": {"path": "m.h", "line": 2}, "message": "CHECK is expanded here too: f -> CHECK"},
        {"location": {"path": "a.cu", "line": 9}, "message": "TRT304: the status of cudaFree is discarded here too"}]}
    assert corpus._also(d) == [["a.cu", 4, "TRT304"], ["m.h", 2, "TRT304"], ["a.cu", 9, "TRT304"]]
    d["code"] = "TRT305"  # (a finding that took a TRT304 finding over at its call: the sites keep their rule)
    assert corpus._also(d) == [["a.cu", 4, "TRT305"], ["m.h", 2, "TRT305"], ["a.cu", 9, "TRT304"]]
    assert corpus._also({"code": "TRT304"}) == []


def test_a_consistent_rename_of_a_literal_writes_the_renamed_literal_on_both_sides(tmp_path):
    # both sides return the name as a literal: both are edited to return the renamed literal (a placeholder left
    # in place, `return X;`, was an undeclared name: the run could no longer resolve the name at all, and the
    # finding whose message names it looked new)
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "preluPlugin.cpp").write_text(
        "#include <NvInfer.h>\nusing namespace nvinfer1;\n"
        "class PReluPlugin : public IPluginV2IOExt\n{\npublic:\n"
        "    const char* getPluginType() const noexcept override;\n};\n"
        "class PReluPluginCreator : public IPluginCreator\n{\npublic:\n"
        "    const char* getPluginName() const noexcept override;\n};\n"
        "const char* PReluPlugin::getPluginType() const noexcept\n{\n    return \"PRelu_TRT\";\n}\n"
        "const char* PReluPluginCreator::getPluginName() const noexcept\n{\n    return \"PRelu_TRT\";\n}\n")
    (neg,) = [m for m in corpus_mutate.generate(tmp_path, corpus_census.census(tmp_path)) if m.negative]
    assert neg.edits == [("p/preluPlugin.cpp", 15, '    return "PRelu_TRTCorpus";'),
                         ("p/preluPlugin.cpp", 19, '    return "PRelu_TRTCorpus";')]


def test_callee_edits_go_to_the_host_function_cpp_would_call(tmp_path):
    """A callee edit goes into a host function: not a kernel (launched with <<<, or defined __global__: device
    code), and of two definitions of a name, the one in enqueue's own file (a static helper of the unit)."""
    (tmp_path / "other.cpp").write_text("int volume(int n)\n{\n    return n;\n}\n")
    (tmp_path / "plugin.cu").write_text(
        "static __global__ void fillKernel(float* x)\n{\n}\n"
        "static int volume(int n)\n{\n    return 2 * n;\n}\n"
        "int Foo::enqueue(void* const* outputs, cudaStream_t stream)\n{\n"
        "    fillKernel<<<1, 32, 0, stream>>>((float*) outputs[0]);\n"
        "    return volume(4);\n}\n")
    tx = corpus_mutate.Texts(tmp_path)
    (enq,) = [corpus_mutate.Body("plugin.cu", o, tx.code["plugin.cu"].index("}", o), "") for o in
              [tx.code["plugin.cu"].index("{", tx.code["plugin.cu"].index("Foo::enqueue"))]]
    got = [(b.file, tx.pos_line(b.file, b.open)) for b in corpus_mutate.callees(tx, enq)]
    assert got == [("plugin.cu", 5)]


def test_route_edits_to_a_plugin_nothing_defines_are_not_seeded():
    # a route to an op no creator of the tree registers (a vendored op) is unresolved before the edit: renaming it
    # changes nothing a rule can see, so it is no seeded defect; a route to a known plugin, and every other class, stays
    M = corpus_mutate.Mutation
    muts = [M("route-name-drift", [("a.py", 3, "x")], ("TRT101",), "MMCVDeform", route="MMCVDeform"),
            M("route-field-rename", [("a.py", 4, "x")], ("TRT103",), "FooPlugin", route="FooPlugin"),
            # a field of a trt.PluginField list: the edit does not name its plugin, it is kept
            M("route-field-rename", [("b.py", 4, "x")], ("TRT103",), "alpha"),
            M("alloc-in-enqueue", [("p.cu", 9, "x")], ("TRT301",), "MMCVDeform")]
    kept, dropped = corpus_mutate.judgeable_routes(muts, {"FooPlugin", "EfficientNMS_TRT"})
    assert [m.subject for m in kept] == ["FooPlugin", "alpha", "MMCVDeform"] and [m.cls for m in dropped] == ["route-name-drift"]
    assert corpus_mutate.judgeable_routes(muts, None) == (muts, [])


def test_a_base_class_is_named_per_directory_in_a_tree_of_independent_samples(tmp_path):
    # two samples with a plugin of the same name; only the second derives a version 2 from its own: the first's
    # class is a plugin, not a base (the census used to call every same-named class a base)
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "p.h").write_text("class FooPlugin : public nvinfer1::IPluginV2DynamicExt {};\n")
    (tmp_path / "b" / "p2.h").write_text('#include "p.h"\nclass FooPluginV2 : public FooPlugin {};\n')
    got = {(i.file, i.kind) for i in corpus_census.census(tmp_path) if i.kind.startswith("plugin")}
    assert got == {("a/p.h", "plugin-class"), ("b/p.h", "plugin-base"), ("b/p2.h", "plugin-class")}


def test_python_fields_named_by_a_variable_are_computed_and_a_python_plugins_own_fields_are_not_route_edits(tmp_path):
    (tmp_path / "m.py").write_text(
        "import numpy as np\nimport tensorrt as trt\n\n\n"
        "class P(trt.IPluginV3, trt.IPluginV3OneCore):\n"
        "    def get_fields_to_serialize(self):\n"
        '        return trt.PluginFieldCollection([trt.PluginField("scale", np.array([1.0], np.float32), trt.PluginFieldType.FLOAT32)])\n'
        "\n\n"
        "def add(network, x, weights):\n"
        '    creator = trt.get_plugin_registry().get_creator("ScalePlugin", "1", "")\n'
        '    fields = [trt.PluginField("scale", np.array([2.0], np.float32), trt.PluginFieldType.FLOAT32)]\n'
        "    fields += [trt.PluginField(k, weights[k], trt.PluginFieldType.FLOAT32) for k in weights]\n"
        '    return creator.create_plugin("s", trt.PluginFieldCollection(fields))\n'
    )
    items = corpus_census.census(tmp_path)
    fields = [(i.line, i.name, i.dynamic, i.extra.get("side")) for i in items if i.kind == "field"]
    assert fields == [(7, "scale", False, "class"), (12, "scale", False, None), (13, "k", True, None)]
    muts = [m for m in corpus_mutate.route_mutations(corpus_mutate.Texts(tmp_path), items) if m.cls == "route-field-rename"]
    # the route's own field is renamed (not the plugin's serialized one), and the edit knows its route's plugin
    assert [(m.line, m.route, m.route_form) for m in muts] == [(12, "ScalePlugin", "lookup")]


def test_route_edits_in_tests_and_attributes_no_creator_declares_are_not_seeded():
    M = corpus_mutate.Mutation
    muts = [M("route-field-rename", [("tests/test_ops.py", 4, "x")], ("TRT103",), "FooPlugin", route="FooPlugin", route_form="onnx"),
            M("route-field-rename", [("py/sym.py", 4, "x")], ("TRT103",), "BarPlugin", route="BarPlugin", route_form="onnx"),
            # a field list handed to createPlugin whole: createPlugin may read what the creator does not declare
            M("route-field-rename", [("py/model.py", 4, "x")], ("TRT103",), "alpha", route="BarPlugin", route_form="lookup"),
            M("route-field-rename", [("py/sym2.py", 4, "x")], ("TRT103",), "FooPlugin", route="FooPlugin", route_form="onnx"),
            M("alloc-in-enqueue", [("tests/p.cu", 9, "x")], ("TRT301",), "FooPlugin")]
    kept, dropped = corpus_mutate.judgeable_routes(muts, {"FooPlugin", "BarPlugin"}, {"FooPlugin"})
    assert [m.file for m in kept] == ["py/model.py", "py/sym2.py", "tests/p.cu"]
    assert [(m.file, m.why) for m in dropped] == [("tests/test_ops.py", "test-file"), ("py/sym.py", "creator-declares-no-fields")]


def test_a_field_whose_name_is_on_the_line_below_its_call_is_renamed_there(tmp_path):
    (tmp_path / "conv.py").write_text(
        "import numpy as np\nimport tensorrt as trt\n\n\ndef make(p):\n"
        '    creator = trt.get_plugin_registry().get_plugin_creator("PadPlugin", "1", "")\n'
        "    fc = trt.PluginFieldCollection([\n"
        "        trt.PluginField(\n"
        "            'paddingLeft',\n"
        "            np.array([p]).astype(np.int32),\n"
        "            trt.PluginFieldType.INT32)])\n"
        "    return creator.create_plugin('', fc)\n"
    )
    items = corpus_census.census(tmp_path)
    muts = [m for m in corpus_mutate.route_mutations(corpus_mutate.Texts(tmp_path), items) if m.cls == "route-field-rename"]
    assert [(m.line, m.edits[0][2].strip(), m.route) for m in muts] == [(9, "'paddingLeftCorpus',", "PadPlugin")]


def test_two_edits_of_one_route_are_never_batched_together():
    # a lookup's name drifted leaves its creator unresolved: a field of that route renamed in the same run would
    # give nothing (FasterTransformer's loaders: the lookup and its fields 41 lines apart)
    M = corpus_mutate.Mutation
    name = M("route-name-drift", [("loader.py", 40, "x")], ("TRT101",), "VitPlugin", {"loader.py"}, near=20, route="VitPlugin")
    field = M("route-field-rename", [("loader.py", 81, "x")], ("TRT103",), "max_batch", {"loader.py"}, near=20,
              route="VitPlugin", route_form="lookup")
    other = M("route-field-rename", [("other.py", 81, "x")], ("TRT103",), "alpha", {"other.py"}, near=20, route="VitPlugin")
    assert [[m.file + ":" + str(m.line) for m in g] for g in corpus_mutate.batches([name, field, other])] == [
        ["loader.py:40", "other.py:81"], ["loader.py:81"]]


def test_a_creators_rename_takes_a_field_it_declares(tmp_path):
    # the plugin's serialized field comes first in the file; the creator declares its own in its constructor
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "p.cu").write_text(
        "class AddPlugin : public IPluginV3 {};\nclass AddPluginCreator : public IPluginCreatorV3One {};\n"
        'void AddPlugin::initFields() { f.emplace_back(PluginField("scalar", &mScalar, PluginFieldType::kFLOAT32, 1)); }\n'
        'AddPluginCreator::AddPluginCreator()\n{\n    a.emplace_back(PluginField("scalar", nullptr, PluginFieldType::kFLOAT32, 1));\n}\n'
        'char const* AddPluginCreator::getPluginName() const noexcept\n{\n    return "Add";\n}\n')
    (tmp_path / "m.py").write_text(
        "import tensorrt as trt\nimport numpy as np\n"
        'c = trt.get_plugin_registry().get_creator("Add", "1", "")\n'
        'p = c.create_plugin("a", trt.PluginFieldCollection([trt.PluginField("scalar", np.float32(1), trt.PluginFieldType.FLOAT32)]))\n')
    items = corpus_census.census(tmp_path)
    (m,) = [m for m in corpus_mutate.generate(tmp_path, items) if m.cls == "field-rename-creator"]
    assert (m.file, m.line, m.declared_field) == ("s/p.cu", 6, "scalar")


def test_a_creators_rename_takes_a_field_it_reads_or_its_route_passes_not_one_only_another_route_passes(tmp_path):
    """Two samples declare a field "scalar" in their creators' constructors. Add's createPlugin reads it and a route
    to Add passes it; PassData's createPlugin reads no field and its only route (to "PassData", the name its
    PLUGIN_NAME says; each sample defines its own) passes none. Renaming PassData's declared "scalar" is no drift
    any rule could see: only Add's creator gets the edit (the global list of route fields holds "scalar" through
    Add's route)."""
    for d, name, reads in (("add", "Add", '    if (!strcmp(fc->fields[0].name, "scalar")) {}\n'), ("pass", "PassData", "")):
        (tmp_path / d).mkdir()
        (tmp_path / d / "p.cu").write_text(
            f'#define PLUGIN_NAME "{name}"\n'
            f"class {name}Plugin : public IPluginV3 {{}};\nclass {name}PluginCreator : public IPluginCreatorV3One {{}};\n"
            f"{name}PluginCreator::{name}PluginCreator()\n{{\n"
            '    a.emplace_back(PluginField("scalar", nullptr, PluginFieldType::kFLOAT32, 1));\n}\n'
            f"char const* {name}PluginCreator::getPluginName() const noexcept\n{{\n    return PLUGIN_NAME;\n}}\n"
            f"IPluginV3* {name}PluginCreator::createPlugin(char const* n, PluginFieldCollection const* fc, TensorRTPhase p) noexcept\n{{\n"
            f"{reads}    return new {name}Plugin();\n}}\n")
    (tmp_path / "add" / "main.py").write_text(
        "import tensorrt as trt\nimport numpy as np\n"
        'c = trt.get_plugin_registry().get_creator("Add", "1", "")\n'
        'p = c.create_plugin("a", trt.PluginFieldCollection([trt.PluginField("scalar", np.float32(1), trt.PluginFieldType.FLOAT32)]))\n')
    (tmp_path / "pass" / "main.py").write_text(
        "import tensorrt as trt\n"
        'c = trt.get_plugin_registry().get_creator("PassData", "1", "")\n'
        'p = c.create_plugin("a", trt.PluginFieldCollection([]), trt.TensorRTPhase.BUILD)\n')
    items = corpus_census.census(tmp_path)
    got = [(m.subject, m.file, m.line) for m in corpus_mutate.generate(tmp_path, items) if m.cls == "field-rename-creator"]
    assert got == [("AddPluginCreator", "add/p.cu", 6)]


def test_a_python_route_beside_its_plugin_is_seeded():
    # corpus_mini's Python routes, moved into the plugin's own directory (a sample's script beside its plugin), are
    # still routes: their fields are renamed
    items = [corpus_census.Item(i.kind, i.file.replace("python/", "plugin/"), i.line, i.name, i.extra)
             for i in corpus_census.census(FIXTURE)]
    tx = corpus_mutate.Texts(FIXTURE)
    for rel in list(tx.raw):
        tx.raw[rel.replace("python/", "plugin/")] = tx.raw[rel]
        tx.code[rel.replace("python/", "plugin/")] = tx.code[rel]
    got = [(m.file, m.subject) for m in corpus_mutate.route_mutations(tx, items) if m.cls == "route-field-rename"]
    assert ("plugin/build.py", "scale") in got


def test_edits_in_code_the_run_sets_aside_or_does_not_analyse_are_not_seeded(tmp_path):
    """A real run over a tree with a sample whose Makefile cannot run and a TensorRT 5-7 plugin: the harness reads
    both from the run's report (the summary's set-aside files, TRT004's class) and does not seed edits there."""
    from trtlint.checks.core.analysis_incomplete import _UNRUNNABLE_TREE

    root = tmp_path / "t"
    files = dict(_UNRUNNABLE_TREE)
    files["samples/live/sigmoid.cu"] = files["samples/old/sigmoid.cu"]
    files["samples/live/Makefile"] = files["samples/live/Makefile"].replace("leaky.cu", "leaky.cu sigmoid.cu")
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    rep, _err, _dt = corpus.check_run(root, 1)
    assert corpus_mutate.set_aside_files(rep) == {"samples/old/sigmoid.cu"}
    assert corpus_mutate.unanalysed_classes(rep) == {("samples/live", "SigmoidPlugin")}


def test_classes_a_trt004_finding_names_are_not_seeded_in_their_folder():
    # the finding is in the header; the class's methods (where the edits go) are in a unit beside it; a message
    # naming two classes names both
    rep = {"diagnostics": [
        {"code": "TRT004", "location": {"path": "ops/a.hpp", "line": 3},
         "message": "plugin APlugin derives from ns::Base, which derives from nvinfer1::IPluginExt, a plugin interface"},
        {"code": "TRT004", "location": {"path": "ops/base.hpp", "line": 9},
         "message": "plugin Adapter and plugin Typed derive from nvinfer1::IPluginExt (Adapter through ns::Base)"},
    ]}
    assert corpus_mutate.unanalysed_classes(rep) == {("ops", "APlugin"), ("ops", "Adapter"), ("ops", "Typed")}


def test_an_edit_at_the_top_of_a_body_opened_in_two_version_branches_goes_after_the_endif(tmp_path):
    """`#ifdef OLD` / `#else` signatures that open one body: the seeded allocation goes on the body's first line after
    the `#endif`, compiled whatever branch the build takes, not into the branch the build leaves out."""
    root = tmp_path / "t"
    (root / "plugin").mkdir(parents=True)
    (root / "plugin" / "foo.cpp").write_text(
        "#include <NvInfer.h>\nusing namespace nvinfer1;\n"
        "class FooPlugin : public IPluginV2Ext\n{\npublic:\n"
        "#ifdef PRE_TRT8\n"
        "    int enqueue(int b, const void* const* in, void** out, void* ws, cudaStream_t s) override {\n"
        "#else\n"
        "    int32_t enqueue(int32_t b, void const* const* in, void* const* out, void* ws, cudaStream_t s) noexcept override {\n"
        "#endif\n"
        "        return 0;\n    }\n};\n")
    muts = [m for m in corpus_mutate.generate(root, corpus_census.census(root)) if m.cls == "alloc-in-enqueue"]
    assert len(muts) == 1
    (f, line, text), = muts[0].edits
    assert (f, line) == ("plugin/foo.cpp", 11) and text.endswith(" return 0;") and "cudaMalloc" in text


def test_edits_in_paths_the_profile_excludes_are_not_seeded():
    # the run names what the detected profile's exclude patterns kept out (project.excluded_by_profile)
    rep = {"project": {"excluded_by_profile": ["docs/", "notebooks/x.py"]}}
    excluded = corpus_mutate.excluded_by_profile(rep)
    assert [excluded(f) for f in ("docs/v2/_downloads/p.py", "notebooks/x.py", "docsrc.py", "py/a.py")] == [
        True, True, False, False]
    assert not corpus_mutate.excluded_by_profile({})("docs/a.py")


def test_edits_in_a_branch_the_run_does_not_compile_and_what_its_enqueue_calls_are_not_seeded(tmp_path):
    """A plugin file wrapped in `#if NV_TENSORRT_MAJOR <= 7` (parsed with newer headers) whose enqueue calls a
    launcher in a live .cu: the run says (TRT004) that branch is not compiled; the harness reads the branch from
    that finding and leaves out every edit in it, and the callee and launch edits its enqueue reaches (the
    launcher's own file is compiled, but no compiled enqueue calls it). A live plugin beside it is still seeded."""
    plugin = (
        '#include <NvInferRuntime.h>\n#include "{k}.h"\n#if NV_TENSORRT_MAJOR <= 7\nusing namespace nvinfer1;\n'
        "class {p}Plugin : public IPluginV2DynamicExt\n{{\npublic:\n"
        '    const char* getPluginType() const noexcept override {{ return "{p}"; }}\n'
        '    const char* getPluginVersion() const noexcept override {{ return "1"; }}\n'
        "    int enqueue(const PluginTensorDesc* inputDesc, const PluginTensorDesc* outputDesc,\n"
        "                const void* const* inputs, void* const* outputs, void* ws, cudaStream_t stream) noexcept override\n"
        "    {{\n        {k}(inputs[0], outputs[0], stream);\n        return 0;\n    }}\n}};\n"
        "class {p}PluginCreator : public IPluginCreator\n{{\npublic:\n"
        '    const char* getPluginName() const noexcept override {{ return "{p}"; }}\n'
        '    const char* getPluginVersion() const noexcept override {{ return "1"; }}\n}};\n'
        "REGISTER_TENSORRT_PLUGIN({p}PluginCreator);\n#endif\n")
    kernel = ("#include <cuda_runtime.h>\n__global__ void {k}Kernel(const float* x, float* y) {{ y[0] = x[0]; }}\n"
              "void {k}(const void* x, void* y, cudaStream_t stream)\n{{\n"
              "    {k}Kernel<<<1, 1, 0, stream>>>((const float*)x, (float*)y);\n}}\n")
    files = {"ops/old/old.cpp": plugin.format(p="Old", k="launchOld"),
             "ops/old/launchOld.h": "#include <cuda_runtime.h>\nvoid launchOld(const void*, void*, cudaStream_t);\n",
             "ops/old/launchOld.cu": kernel.format(k="launchOld"),
             "ops/live/live.cpp": plugin.format(p="Live", k="launchLive").replace("#if NV_TENSORRT_MAJOR <= 7\n", "")
             .replace("#endif\n", ""),
             "ops/live/launchLive.h": "#include <cuda_runtime.h>\nvoid launchLive(const void*, void*, cudaStream_t);\n",
             "ops/live/launchLive.cu": kernel.format(k="launchLive")}
    root = tmp_path / "t"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    rep, _err, _dt = corpus.check_run(root, 1)
    branches = corpus_mutate.uncompiled_branches(rep, root)
    assert branches == {"ops/old/old.cpp": [(3, 24)]}
    muts = corpus_mutate.generate(root, corpus_census.census(root))
    left_out = sorted((m.cls, m.file) for m in muts if corpus_mutate.in_uncompiled(m, branches))
    kept = sorted((m.cls, m.file) for m in muts if not corpus_mutate.in_uncompiled(m, branches) and not m.negative)
    hot = ("alloc-in-callee", "default-stream", "memcpy-in-callee", "sync-in-callee")
    assert {c for c, f in left_out if f == "ops/old/launchOld.cu"} == set(hot)
    assert {c for c, f in left_out if f == "ops/old/old.cpp"} >= {
        "name-drift-plugin", "version-drift-plugin", "name-drift-creator", "version-drift-creator", "alloc-in-enqueue"}
    assert all(f.startswith("ops/old/") for _c, f in left_out)
    assert {c for c, f in kept if f == "ops/live/launchLive.cu"} == set(hot)
    assert {c for c, f in kept if f == "ops/live/live.cpp"} >= {"name-drift-plugin", "alloc-in-enqueue"}
    # a branch ends at its own #else/#elif/#endif, nested groups skipped
    lines = ["#if A", "#ifdef B", "x", "#else", "y", "#endif", "z", "#else", "w", "#endif"]
    assert corpus_mutate.branch_extent(lines, 1) == (1, 8)
    assert corpus_mutate.branch_extent(lines, 8) == (8, 10)


def test_a_plugins_drift_is_not_seeded_when_the_run_names_its_creator_as_not_analysed(tmp_path):
    """A plugin whose creator derives a base from a header the tree lacks: the run says (TRT004) the creator did
    not resolve, so the plugin's name and version have nothing to be compared with. That holds whether the census
    pairs the creator with the plugin (a creator deriving a TensorRT interface through an unknown namespace) or
    does not list it (a creator deriving a project base); a plugin in another folder is still seeded."""
    plugin = ('#include <NvInfer.h>\n#include "plugin.h"\nusing namespace nvinfer1;\n'
              "class {p}Layer : public IPluginV2Ext\n{{\npublic:\n"
              "    const char* getPluginType() const noexcept override;\n"
              "    const char* getPluginVersion() const noexcept override;\n}};\n"
              "class {p}Creator : public {base}\n{{\npublic:\n"
              "    const char* getPluginName() const noexcept override;\n}};\n")
    body = ('#include "{p}.h"\nconst char* {p}Layer::getPluginType() const noexcept\n{{\n    return "{p}";\n}}\n'
            'const char* {p}Layer::getPluginVersion() const noexcept\n{{\n    return "1";\n}}\n'
            'const char* {p}Creator::getPluginName() const noexcept\n{{\n    return "{p}";\n}}\n')
    files = {}
    for p, base in (("Dcn", "BaseCreator"), ("Chk", "nvinfer1::safe::IPluginCreator"), ("Live", "IPluginCreator")):
        files[f"{p.lower()}/{p}.h"] = plugin.format(p=p, base=base)
        files[f"{p.lower()}/{p}.cpp"] = body.format(p=p)
    root = tmp_path / "t"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    rep = {"diagnostics": [
        {"code": "TRT004", "location": {"path": f"{d}/{p}.h", "line": 10},
         "message": f"creator {p}Creator did not resolve to a TensorRT interface (base {b} is unknown), so no rule "
                    'checks it: #include "plugin.h" was not found; add its directory to `include-dirs`'}
        for d, p, b in (("dcn", "Dcn", "BaseCreator"), ("chk", "Chk", "nvinfer1::safe::IPluginCreator"))]}
    unseen, creators = corpus_mutate.unanalysed_classes(rep), corpus_mutate.unanalysed_classes(rep, "creator")
    assert creators == unseen == {("dcn", "DcnCreator"), ("chk", "ChkCreator")}
    assert corpus_mutate.unanalysed_classes(rep, "plugin") == set()
    muts = corpus_mutate.generate(root, corpus_census.census(root))
    drift = {(m.cls, m.subject): corpus_mutate.other_side_unanalysed(m, unseen, creators) for m in muts
             if m.cls in ("name-drift-plugin", "version-drift-plugin")}
    assert drift == {("name-drift-plugin", "DcnLayer"): True, ("version-drift-plugin", "DcnLayer"): True,
                     ("name-drift-plugin", "ChkLayer"): True, ("version-drift-plugin", "ChkLayer"): True,
                     ("name-drift-plugin", "LiveLayer"): False, ("version-drift-plugin", "LiveLayer"): False}


def test_a_creators_field_list_built_outside_its_classs_folder_is_no_route(tmp_path):
    """A creator declared in a header of include/ whose constructor, defined in src/, builds its field list
    (knzo25/bevfusion_ros2's and open-mmlab/mmcv's TensorRT plugins): the list is the creator's own declaration,
    so renaming one of its fields is no route-field-rename (judged near the list, the finding of the drift is at
    createPlugin's read); the rename is the creator's, when a route passes the field."""
    (tmp_path / "include").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "include" / "c.hpp").write_text("class GatherPluginCreator : public IPluginCreatorV3One {};\n")
    (tmp_path / "src" / "c.cpp").write_text(
        '#include "c.hpp"\n'
        "GatherPluginCreator::GatherPluginCreator()\n{\n"
        '    a.emplace_back(PluginField("algo", nullptr, PluginFieldType::kINT32, 1));\n}\n'
        'char const* GatherPluginCreator::getPluginName() const noexcept\n{\n    return "Gather";\n}\n'
        "IPluginV3* GatherPluginCreator::createPlugin(char const* n, PluginFieldCollection const* fc, TensorRTPhase p) noexcept\n{\n"
        '    if (std::string(fc->fields[0].name) == "algo") { return nullptr; }\n    return nullptr;\n}\n')
    items = corpus_census.census(tmp_path)
    assert [(i.file, i.name) for i in items if i.kind == "field"] == [("src/c.cpp", "algo")]
    muts = corpus_mutate.generate(tmp_path, items)
    assert [m for m in muts if m.cls == "route-field-rename"] == []
    (tmp_path / "m.py").write_text(
        "import tensorrt as trt\nimport numpy as np\n"
        'c = trt.get_plugin_registry().get_creator("Gather", "1", "")\n'
        'p = c.create_plugin("a", trt.PluginFieldCollection([trt.PluginField("algo", np.int32(1), trt.PluginFieldType.INT32)]))\n')
    items = corpus_census.census(tmp_path)
    muts = corpus_mutate.generate(tmp_path, items)
    assert [(m.file, m.line, m.declared_field) for m in muts if m.cls == "field-rename-creator"] == [("src/c.cpp", 4, "algo")]
    assert [m.file for m in muts if m.cls == "route-field-rename"] == ["m.py"]


def test_a_field_renamed_in_a_list_a_creator_reads_by_position_is_no_route_edit():
    """A C++ lookup's field list whose creator declares no field and reads ``fields[0]``, ``fields[1]``... by
    position (ceccocats/tkDNN's MaxPoolFixedSizeRT): the names are no part of the contract, so a renamed one is no
    defect; kept where a creator of the plugin declares a field or reads one by name."""
    M = corpus_mutate.Mutation
    muts = [M("route-field-rename", [("src/net.cpp", 4, "x")], ("TRT103",), "c", route="PoolPlugin", route_form="lookup"),
            M("route-field-rename", [("src/net2.cpp", 4, "x")], ("TRT103",), "h", route="ReadPlugin", route_form="lookup"),
            M("route-field-rename", [("src/net3.cpp", 4, "x")], ("TRT103",), "w", route="DeclPlugin", route_form="lookup")]
    known = {"PoolPlugin", "ReadPlugin", "DeclPlugin"}
    dump = {"creators": [{"name": "PoolPlugin", "fields": [], "reads": []},
                         {"name": "ReadPlugin", "fields": [], "reads": ["h"]},
                         {"name": "DeclPlugin", "fields": ["w:kINT32"], "reads": []}]}
    named = corpus.named_field_names(dump)
    kept, dropped = corpus_mutate.judgeable_routes(muts, known, corpus.fielded_names(dump), named)
    assert [m.file for m in kept] == ["src/net2.cpp", "src/net3.cpp"]
    assert [(m.file, m.why) for m in dropped] == [("src/net.cpp", "creator-reads-fields-by-position")]


def test_a_field_renamed_in_a_list_a_helper_hands_to_an_unknown_plugin_is_not_seeded():
    """A Python field list handed to a helper (``get_trt_plugin("layer_norm", fc, "1", "fx2trt")``, pytorch/TensorRT's
    fx converters) that the text census names no lookup for: the run's index says where the list goes; when no
    plugin it goes to is defined in the tree or by TensorRT, the rename changes nothing any rule can see."""
    M = corpus_mutate.Mutation
    muts = [M("route-field-rename", [("fx/conv.py", 4, "x")], ("TRT103",), "gamma", route="", route_form="lookup"),
            M("route-field-rename", [("fx/other.py", 4, "x")], ("TRT103",), "type_id", route="", route_form="lookup")]
    sites = corpus.lookup_sites({"lookup_sites": [
        {"name": "layer_norm", "fields": ["gamma", "beta"], "at": "fx/conv.py:20"},
        {"name": "LayerNormDynamic", "fields": ["gamma", "beta"], "at": "fx/conv.py:22"},
        {"name": "CustomGeluPluginDynamic", "fields": ["type_id"], "at": "fx/other.py:9"}]})
    kept, dropped = corpus_mutate.judgeable_routes(muts, {"CustomGeluPluginDynamic"}, None, None, sites)
    assert [m.file for m in kept] == ["fx/other.py"]
    assert [(m.file, m.why) for m in dropped] == [("fx/conv.py", "unknown-plugin")]


def test_census_reads_a_class_declared_behind_an_attribute_macro_with_arguments(tmp_path):
    """``class TRT_DEPRECATED_BECAUSE("...") FooPlugin : public IPluginV2Ext`` (NVIDIA/TensorRT's gridAnchorPlugin):
    the class is a plugin class, and its creator's field list in the same folder is no route."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "grid.h").write_text(
        'class TRT_DEPRECATED_BECAUSE("Anchors are obsolete (see: x).") GridPlugin : public IPluginV2Ext\n{\n};\n'
        'class TRT_DEPRECATED_BECAUSE("Anchors are obsolete.") GridPluginCreator\n    : public IPluginCreator\n{\n};\n')
    (tmp_path / "p" / "grid.cpp").write_text(
        '#include "grid.h"\nGridPluginCreator::GridPluginCreator()\n{\n'
        '    a.emplace_back(PluginField("minSize", nullptr, PluginFieldType::kFLOAT32, 1));\n}\n')
    items = corpus_census.census(tmp_path)
    assert [(i.kind, i.name) for i in items if i.kind.endswith("-class")] == [("plugin-class", "GridPlugin"),
                                                                            ("creator-class", "GridPluginCreator")]
    assert [m for m in corpus_mutate.generate(tmp_path, items) if m.cls == "route-field-rename"] == []


def test_a_route_named_by_a_variable_is_found_at_the_node_that_uses_it():
    """A name drifted where a variable is assigned, 36 lines above the graph-surgery node that uses it: the finding
    at the node is about that route (within the route's reach of the use), one elsewhere in the file is not."""
    def diag(line):
        return {"code": "TRT101", "message": "ONNX node 'NmsCorpus' names plugin 'NmsCorpus'",
                "location": {"path": "p/surgeon.py", "line": line}, "related": []}

    m = corpus_mutate.Mutation("route-name-drift", [("p/surgeon.py", 212, "")], ("TRT101", "TRT501"), "Nms",
                               {"p/surgeon.py"}, near=corpus_mutate.ROUTE_NEAR, route="Nms", use=248)
    assert corpus_mutate.judge([m], [], {"diagnostics": [diag(248)]})[0]["found"] is True
    assert corpus_mutate.judge([m], [], {"diagnostics": [diag(300)]})[0]["found"] is False
    assert corpus_mutate.judge([dataclasses.replace(m, use=0)], [], {"diagnostics": [diag(248)]})[0]["found"] is False


def test_a_callee_defined_twice_in_its_file_is_edited_in_each_definition(tmp_path):
    """A name defined at file scope and again in a namespace of the same file (a kernel file's old entry point kept
    beside the namespaced one): the text cannot tell which one enqueue's call runs, so a callee edit goes into both."""
    (tmp_path / "layer.cu").write_text(
        "int infer(int n)\n{\n    return n;\n}\n"
        "namespace ns\n{\nint infer(int n)\n{\n    return 2 * n;\n}\n} // namespace ns\n")
    (tmp_path / "plugin.cpp").write_text(
        "namespace ns\n{\nint Foo::enqueue(void* const* outputs, cudaStream_t stream)\n{\n    return infer(4);\n}\n}\n")
    tx = corpus_mutate.Texts(tmp_path)
    code = tx.code["plugin.cpp"]
    enq = corpus_mutate.Body("plugin.cpp", code.index("{", code.index("enqueue")), code.rindex("}"), "")
    (cal,) = corpus_mutate.callees(tx, enq)
    assert [(b.file, tx.pos_line(b.file, b.open)) for b in (cal,) + cal.siblings] == [("layer.cu", 2), ("layer.cu", 8)]


def test_an_unqualified_call_in_a_method_is_to_the_class_member_of_that_name(tmp_path):
    """enqueue calls ``entry_index(...)``; its class defines a member of that name inline in its header, and another
    file nearer the plugin's (same directory tree) defines a free function of the same name. C++ finds the member
    first (class scope before namespace scope), so the callee edit goes into the member (tkDNN's YoloRT: a seed in
    ``src/Region.cpp``'s free function was one enqueue never reaches)."""
    (tmp_path / "include").mkdir()
    (tmp_path / "src" / "plugins").mkdir(parents=True)
    (tmp_path / "include" / "yolo.h").write_text(
        "class YoloRT : public IPluginV2\n{\npublic:\n    int entry_index(int b, int l)\n    {\n        return b + l;\n    }\n};\n")
    (tmp_path / "src" / "region.cpp").write_text("int entry_index(int b, int l, int e)\n{\n    return b + l + e;\n}\n")
    (tmp_path / "src" / "plugins" / "yolo.cpp").write_text(
        "int YoloRT::enqueue(void* const* outputs, cudaStream_t stream)\n{\n    return entry_index(1, 2);\n}\n")
    tx = corpus_mutate.Texts(tmp_path)
    code = tx.code["src/plugins/yolo.cpp"]
    enq = corpus_mutate.Body("src/plugins/yolo.cpp", code.index("{"), code.rindex("}"), "")
    got = lambda cal: [(b.file, tx.pos_line(b.file, b.open)) for b in cal]
    assert got(corpus_mutate.callees(tx, enq, ("YoloRT", "include/yolo.h", 1))) == [("include/yolo.h", 5)]
    assert got(corpus_mutate.callees(tx, enq)) == [("src/region.cpp", 2)]  # (the class not known: the nearest file)


def test_a_variable_declared_with_constructor_arguments_is_no_callee(tmp_path):
    """`std::vector<int64_t> shape(n);` in enqueue declares a variable: no call of a `shape` defined elsewhere (a
    vendored library's member function), while `return volume(4);` and `else fill(x);` are calls."""
    (tmp_path / "vendor.h").write_text("struct Arr\n{\n    long shape(long d) const\n    {\n        return d;\n    }\n};\n")
    (tmp_path / "plugin.cpp").write_text(
        "int volume(int n)\n{\n    return n;\n}\nvoid fill(int x)\n{\n}\n"
        "int Foo::enqueue(void* const* outputs, cudaStream_t stream)\n{\n"
        "    std::vector<int64_t> shape(4);\n    float scale(2.0F);\n    if (scale > 1) {} else fill(1);\n"
        "    return volume(4);\n}\n")
    tx = corpus_mutate.Texts(tmp_path)
    code = tx.code["plugin.cpp"]
    enq = corpus_mutate.Body("plugin.cpp", code.index("{", code.index("enqueue")), code.rindex("}"), "")
    assert [(b.file, tx.pos_line(b.file, b.open)) for b in corpus_mutate.callees(tx, enq)] == [("plugin.cpp", 6), ("plugin.cpp", 2)]


def test_a_launch_in_a_callee_defined_twice_in_its_file_loses_its_stream_in_each_definition(tmp_path):
    """The default-stream edit of a callee defined at file scope and again in a namespace goes into both, as the
    callee edits do (TensorRT OSS's anchorGridInference)."""
    (tmp_path / "layer.cu").write_text(
        "__global__ void k(float* x)\n{\n}\n"
        "int infer(float* x, cudaStream_t stream)\n{\n    k<<<1, 32, 0, stream>>>(x);\n    return 0;\n}\n"
        "namespace ns\n{\nint infer(float* x, cudaStream_t stream)\n{\n    k<<<2, 64, 0, stream>>>(x);\n    return 0;\n}\n}\n")
    (tmp_path / "plugin.cpp").write_text(
        "#include <NvInferRuntime.h>\nnamespace ns\n{\nclass FooPlugin : public nvinfer1::IPluginV2DynamicExt\n{\n"
        "    int enqueue(void* const* outputs, cudaStream_t stream) noexcept override;\n};\n"
        "int FooPlugin::enqueue(void* const* outputs, cudaStream_t stream) noexcept\n{\n"
        "    return infer((float*) outputs[0], stream);\n}\n}\n")
    muts = [m for m in corpus_mutate.generate(tmp_path, corpus_census.census(tmp_path)) if m.cls == "default-stream"]
    assert [[(f, ln, t.strip()) for f, ln, t in m.edits] for m in muts] == [
        [("layer.cu", 6, "k<<<1, 32>>>(x);"), ("layer.cu", 13, "k<<<2, 64>>>(x);")]]


def test_census_counts_no_other_librarys_node_and_no_onnx_own_domain():
    # a ROS node and a converter's own Node class are not graph surgery; ONNX-ML and training ops are ONNX's own
    ros = 'from rclpy.node import Node\nnode = Node("adapi_default_web_server")\n'
    assert [i for i in corpus_census.py_items("launch.py", ros) if i.kind == "emission"] == []
    gs = 'import onnx_graphsurgeon as gs\nfrom onnx_graphsurgeon import Node\nn = Node("MyPlugin", inputs=[x])\n'
    assert [i.name for i in corpus_census.py_items("surgery.py", gs) if i.kind == "emission"] == ["MyPlugin"]
    assert not corpus_census.is_plugin_op("Adagrad", "ai.onnx.preview.training")
    assert not corpus_census.is_plugin_op("TreeEnsembleClassifier", "ai.onnx.ml")
    assert corpus_census.is_plugin_op("Adagrad", "acme")


def test_census_calls_a_base_that_a_macro_pasted_class_derives_a_base(tmp_path):
    # TNN-style: one plugin base, the plugins made by a macro pasting their names
    (tmp_path / "builder.h").write_text(
        "class PluginLayerBuilder : public nvinfer1::IPluginV2DynamicExt {\npublic:\n  int enqueue() noexcept;\n};\n"
        "#define DECLARE_PLUGIN(type_string) \\\n  class type_string##PluginLayerBuilder : public PluginLayerBuilder { \\\n"
        "  public: \\\n    const char* getPluginType() const noexcept; \\\n  };\n", encoding="utf-8")
    (tmp_path / "gelu.cc").write_text('#include "builder.h"\nDECLARE_PLUGIN(Gelu);\n', encoding="utf-8")
    items = corpus_census.census(tmp_path)
    kinds = {(i.kind, i.name) for i in items}
    assert ("plugin-base", "PluginLayerBuilder") in kinds
    assert not any("##" in name for _k, name in kinds)
    # each use of the macro declares a plugin class, counted at the use
    assert [(i.kind, i.file, i.line, i.name) for i in items if i.kind == "plugin-class"] == [
        ("plugin-class", "gelu.cc", 2, "GeluPluginLayerBuilder")]
