"""`trtlint coverage` (issue 25): every node class, every restriction kind, subgraphs and functions, the output
formats and the exit codes, on real ONNX models written with onnx.helper."""

from __future__ import annotations

import json
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from trtlint.checks.examples.contract import creator_cpp
from trtlint.cli.commands import main
from trtlint.coverage.runner import coverage

F = TensorProto.FLOAT


def save(path: Path, nodes, *, inputs=None, inits=(), opset=17, extra_opsets=(("trt", 1), ("acme", 1)), functions=()) -> Path:
    inputs = inputs if inputs is not None else [helper.make_tensor_value_info("x", F, [1, 3, 8, 8])]
    g = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info("y", F, None)], initializer=list(inits))
    ops = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    m = helper.make_model(g, opset_imports=ops, functions=list(functions))
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(m, str(path))
    return path


def nodes_of(report, path_end: str = "") -> dict:
    m = next(m for m in report.models if m.path.endswith(path_end))
    return {n.logical.rsplit("/", 1)[-1]: n for n in m.nodes}


def cov(path: Path, **kw):
    return coverage([path], no_project=True, **kw)


# ---------------------------------------------------------------------------------------------------------
# one test per class


def test_builtin(tmp_path):
    r = cov(save(tmp_path / "m.onnx", [helper.make_node("Relu", ["x"], ["y"], name="relu")]))
    n = nodes_of(r)["relu"]
    assert (n.cls, n.detail) == ("builtin", "built-in importer")
    assert not r.failed


def test_library_plugin(tmp_path):
    # every field its createPlugin requires (validateRequiredAttributesExist): one left out is a TRT103 problem
    node = helper.make_node("EfficientNMS_TRT", ["x"], ["y"], name="nms", domain="trt", score_threshold=0.5,
                            iou_threshold=0.5, max_output_boxes=100, background_class=-1, score_activation=0,
                            box_coding=0)
    n = nodes_of(cov(save(tmp_path / "m.onnx", [node])))["nms"]
    assert n.cls == "library" and "libnvinfer_plugin" in n.detail
    node.attribute.remove(next(a for a in node.attribute if a.name == "box_coding"))
    n = nodes_of(cov(save(tmp_path / "m2.onnx", [node])))["nms"]
    assert n.cls == "problem" and "box_coding" in n.detail


def test_problem_plugin_node(tmp_path):
    # TensorRT's library answers EfficientNMS_TRT, but the shape-input index is out of range (TRT505); the rule
    # reports the first node "and 1 more node like it": both nodes have the problem
    nodes = [
        helper.make_node("EfficientNMS_TRT", ["x"], ["t"], name="nms", domain="trt", tensorrt_plugin_shape_input_indices=[5]),
        helper.make_node("EfficientNMS_TRT", ["t"], ["y"], name="nms2", domain="trt", tensorrt_plugin_shape_input_indices=[5]),
    ]
    r = cov(save(tmp_path / "m.onnx", nodes))
    ns = nodes_of(r)
    for name in ("nms", "nms2"):
        assert ns[name].cls == "problem" and ns[name].codes == ("TRT505",), ns[name].detail
    assert r.failed


def test_unsupported_standard_op_and_unknown_plugin(tmp_path):
    nodes = [
        helper.make_node("Unique", ["x"], ["u"], name="uniq"),
        helper.make_node("NoSuchPlugin", ["u"], ["y"], name="custom", domain="acme"),
    ]
    ns = nodes_of(cov(save(tmp_path / "m.onnx", nodes)))
    assert ns["uniq"].cls == "unsupported" and "ONNX operator Unique" in ns["uniq"].detail
    assert ns["custom"].cls == "unsupported" and "no creator registers 'NoSuchPlugin'" in ns["custom"].detail


def test_unsupported_version_the_library_does_not_ship(tmp_path):
    node = helper.make_node("EfficientNMS_TRT", ["x"], ["y"], name="nms", domain="trt", plugin_version="7")
    n = nodes_of(cov(save(tmp_path / "m.onnx", [node])))["nms"]
    assert n.cls == "unsupported" and "version '7'" in n.detail


def test_project_plugin(tmp_path):
    (tmp_path / "trtlint.toml").write_text("", encoding="utf-8")
    (tmp_path / "cpp").mkdir()
    (tmp_path / "cpp" / "fooPlugin.cpp").write_text(creator_cpp("FooPlugin"), encoding="utf-8")
    nodes = [
        helper.make_node("FooPlugin", ["x"], ["t"], name="foo", domain="acme", alpha=1.0),
        # the same creator, but a shape-input index out of range: a problem (TRT505), with the creator named
        helper.make_node("FooPlugin", ["t"], ["y"], name="foo_bad", domain="acme", alpha=1.0, tensorrt_plugin_shape_input_indices=[4]),
    ]
    model = save(tmp_path / "models" / "m.onnx", nodes)
    r = coverage([model], root=tmp_path, jobs=1, use_cache=False)
    ns = nodes_of(r)
    n = ns["foo"]
    assert n.cls == "project", n.detail
    assert "creator FooPluginCreator" in n.detail and "cpp/fooPlugin.cpp:" in n.detail
    assert ns["foo_bad"].cls == "problem" and "TRT505" in ns["foo_bad"].codes and "creator FooPluginCreator" in ns["foo_bad"].detail
    # without the project, the same node is unsupported
    assert nodes_of(cov(model))["foo"].cls == "unsupported"


# ---------------------------------------------------------------------------------------------------------
# one test per restriction kind


def test_restriction_attribute_value(tmp_path):
    nodes = [helper.make_node("Resize", ["x", "", "s"], ["y"], name="rs", coordinate_transformation_mode="tf_crop_and_resize")]
    s = helper.make_tensor("s", F, [4], [1, 1, 2, 2])
    n = nodes_of(cov(save(tmp_path / "m.onnx", nodes, inits=[s])))["rs"]
    assert n.cls == "restricted" and n.detail.startswith("attribute: coordinate_transformation_mode='tf_crop_and_resize'"), n.detail
    ok = [helper.make_node("Resize", ["x", "", "s"], ["y"], name="rs", mode="linear")]
    assert nodes_of(cov(save(tmp_path / "ok.onnx", ok, inits=[s])), "ok.onnx")["rs"].cls == "builtin"


def test_restriction_constant_input(tmp_path):
    axes_init = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    computed = [
        helper.make_node("Shape", ["x"], ["shp"], name="shape"),
        helper.make_node("Slice", ["shp", "st", "en"], ["a"], name="sl", ),
        helper.make_node("ReduceSum", ["x", "a"], ["y"], name="sum"),
    ]
    inits = [helper.make_tensor("st", TensorProto.INT64, [1], [0]), helper.make_tensor("en", TensorProto.INT64, [1], [1])]
    n = nodes_of(cov(save(tmp_path / "m.onnx", computed, inits=inits)))["sum"]
    assert n.cls == "restricted" and n.detail.startswith("constant input: input 1 (axes) 'a' is computed"), n.detail
    # an initializer, or a Constant node's output, is a constant
    const = [helper.make_node("Constant", [], ["c"], name="c", value=axes_init), helper.make_node("ReduceSum", ["x", "c"], ["y"], name="sum")]
    assert nodes_of(cov(save(tmp_path / "c.onnx", const)), "c.onnx")["sum"].cls == "builtin"
    init = [helper.make_node("ReduceSum", ["x", "axes"], ["y"], name="sum")]
    assert nodes_of(cov(save(tmp_path / "i.onnx", init, inits=[axes_init])), "i.onnx")["sum"].cls == "builtin"


def test_restriction_dtype(tmp_path):
    inputs = [helper.make_tensor_value_info("x", TensorProto.INT8, [4])]
    n = nodes_of(cov(save(tmp_path / "m.onnx", [helper.make_node("Acos", ["x"], ["y"], name="acos")], inputs=inputs)))["acos"]
    assert n.cls == "restricted" and n.detail.startswith("dtype: input 0 'x' is INT8"), n.detail
    # DOUBLE is cast down by the parser: not a restriction
    inputs = [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [4])]
    n = nodes_of(cov(save(tmp_path / "d.onnx", [helper.make_node("Acos", ["x"], ["y"], name="acos")], inputs=inputs)), "d.onnx")["acos"]
    assert n.cls == "builtin"


def test_restriction_opset(tmp_path):
    # ArgMax's select_last_index needs opset 12: the same node is restricted in opset 11, imported in 12
    node = [helper.make_node("ArgMax", ["x"], ["y"], name="am", select_last_index=1)]
    n = nodes_of(cov(save(tmp_path / "m11.onnx", node, opset=11)), "m11.onnx")["am"]
    assert n.cls == "restricted" and n.detail.startswith("opset: the model imports ONNX opset 11 (select_last_index"), n.detail
    assert nodes_of(cov(save(tmp_path / "m12.onnx", node, opset=12)), "m12.onnx")["am"].cls == "builtin"
    # without select_last_index, opset 11 is fine
    plain = [helper.make_node("ArgMax", ["x"], ["y"], name="am")]
    assert nodes_of(cov(save(tmp_path / "p11.onnx", plain, opset=11)), "p11.onnx")["am"].cls == "builtin"


def test_opset_outside_the_documented_range_is_a_note_and_tensorrt_version(tmp_path):
    model = save(tmp_path / "m.onnx", [helper.make_node("Relu", ["x"], ["y"], name="relu")], opset=23)
    r = cov(model)
    assert nodes_of(r)["relu"].cls == "builtin" and not r.failed
    assert any("opset 23 is outside the range 9 to 20" in note for note in r.models[0].notes)
    assert cov(model, tensorrt="9.3").tensorrt == "9.3"


def test_unchecked_restrictions_are_listed(tmp_path):
    r = cov(save(tmp_path / "m.onnx", [helper.make_node("TopK", ["x", "k"], ["y", "i"], name="topk")],
                 inits=[helper.make_tensor("k", TensorProto.INT64, [1], [3])]))
    assert any(u["op"] == "TopK" and "3840" in u["what"] for u in r.unchecked)


# ---------------------------------------------------------------------------------------------------------
# subgraphs and model-local functions


def test_subgraph_nodes_are_classified(tmp_path):
    out = helper.make_tensor_value_info("y", F, None)
    then_g = helper.make_graph([helper.make_node("Unique", ["x"], ["y"], name="inner_unique")], "then", [], [out])
    else_g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="inner_relu")], "else", [], [out])
    cond = helper.make_tensor("cond", TensorProto.BOOL, [], [True])
    node = helper.make_node("If", ["cond"], ["y"], name="if0", then_branch=then_g, else_branch=else_g)
    r = cov(save(tmp_path / "m.onnx", [node], inits=[cond]))
    m = r.models[0]
    by = {n.logical: n for n in m.nodes}
    assert by["g/if0/then_branch/inner_unique"].cls == "unsupported"
    assert by["g/if0/else_branch/inner_relu"].cls == "builtin"
    assert by["g/if0"].cls == "builtin"


def test_function_nodes_are_classified(tmp_path):
    fn = helper.make_function("local", "MyBlock", ["a"], ["b"],
                              [helper.make_node("EfficientNMS_TRT", ["a"], ["b"], name="nms_in_fn", domain="trt")],
                              [helper.make_opsetid("", 17), helper.make_opsetid("trt", 1)])
    call = helper.make_node("MyBlock", ["x"], ["y"], name="call", domain="local")
    r = cov(save(tmp_path / "m.onnx", [call], extra_opsets=(("trt", 1), ("local", 1)), functions=[fn]))
    by = {n.logical: n for n in r.models[0].nodes}
    assert by["g/call"].cls == "function"
    assert by["function:local::MyBlock/nms_in_fn"].cls == "library"


# ---------------------------------------------------------------------------------------------------------
# the command: formats and exit codes


def test_cli_json_markdown_and_exit_codes(tmp_path, capsys):
    good = save(tmp_path / "good.onnx", [helper.make_node("Relu", ["x"], ["y"], name="relu")])
    bad = save(tmp_path / "bad.onnx", [helper.make_node("Unique", ["x"], ["y"], name="uniq")])
    assert main(["coverage", "--no-project", str(good), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["totals"]["builtin"] == 1 and data["failed"] is False
    assert data["models"][0]["ops"] == [{"op_type": "Relu", "domain": "", "class": "builtin", "count": 1, "example": "g/relu", "detail": "built-in importer"}]

    assert main(["coverage", "--no-project", str(good), str(bad), "--format", "markdown"]) == 1
    md = capsys.readouterr().out
    assert "| `Unique` | unsupported | 1 | `g/uniq` |" in md and "✅" in md and "❌" in md

    assert main(["coverage", "--no-project", str(bad)]) == 1
    text = capsys.readouterr().out
    assert "Unique" in text and "unsupported" in text

    assert main(["coverage", "--no-project", str(tmp_path / "missing.onnx")]) == 2
    assert "no such file" in capsys.readouterr().err


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"\x08\x07\x12\xff\xff", "not a valid ONNX model"),
        (b"version https://example.com/spec/v1\noid sha256:abc\n", "not a valid ONNX model"),
    ],
)
def test_unreadable_model_is_reported_not_raised(tmp_path, capsys, content, reason):
    p = tmp_path / "m.onnx"
    p.write_bytes(content)
    assert main(["coverage", "--no-project", str(p), "--format", "json"]) == 1
    m = json.loads(capsys.readouterr().out)["models"][0]
    assert reason in m["error"]


def test_a_check_applies_only_to_the_tensorrt_versions_it_names(tmp_path):
    """`since`/`until` in a restriction pack: judged against --tensorrt (a user pack's check here)."""
    import dataclasses

    from trtlint.coverage.model import classify, knowledge_of
    from trtlint.coverage.runner import project_index
    from trtlint.frontends.onnx_detail import read_model

    model = save(tmp_path / "m.onnx", [helper.make_node("Gelu", ["x"], ["y"], name="gelu", approximate="tanh")], opset=20)
    index = project_index([model], no_project=True)[0]
    base = knowledge_of(index)
    check = {"op": "Gelu", "kind": "attribute", "attribute": "approximate", "allowed": ["none"], "reason": "test", "since": "11.0"}
    res = {**base.restrictions, "checks": [check]}
    detail = read_model(model)
    old = classify(detail, dataclasses.replace(base, restrictions=res, tensorrt="10.1"))
    new = classify(detail, dataclasses.replace(base, restrictions=res, tensorrt="11.0"))
    assert old.nodes[0].cls == "builtin"
    assert new.nodes[0].cls == "restricted" and new.nodes[0].detail == "attribute: approximate='tanh' (test)"


def test_a_git_lfs_pointer_is_a_model_not_fetched_not_a_failure(tmp_path, capsys):
    """A clone without `git lfs pull` holds pointers in place of the models: said, and not a failed model."""
    from trtlint.checks.core.parse_error import ParseError

    (tmp_path / "m.onnx").write_bytes(ParseError.LFS)
    report = coverage([tmp_path / "m.onnx"], no_project=True)
    (m,) = report.models
    assert (m.error, m.skipped, m.failed, report.failed) == (
        None, "model not fetched (a Git LFS pointer in place of the file); run `git lfs pull` to check it", False, False)
    assert main(["coverage", str(tmp_path / "m.onnx"), "--no-project", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["models"][0]
    assert (got["error"], got["skipped"]) == (None, m.skipped)


def test_coverage_says_which_project_judged_the_plugin_nodes(tmp_path, capsys):
    """Issue 32: outside a project coverage says it used none; inside one, which (as check's first line does)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    model = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y]))
    loose = tmp_path / "loose"
    loose.mkdir()
    onnx.save(model, str(loose / "m.onnx"))
    assert main(["coverage", str(loose / "m.onnx"), "--no-project", "--format", "json"]) == 0
    assert capsys.readouterr().err.splitlines()[0] == (
        "trtlint: no project: plugin nodes are judged against TensorRT's plugin library only (give --root PROJECT "
        "for a project's creators), against TensorRT 11.1")
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    onnx.save(model, str(proj / "m.onnx"))
    assert main(["coverage", str(proj / "m.onnx"), "--format", "json", "--no-cache"]) == 0
    # the line `trtlint check` prints, and what judges the plugin nodes
    assert capsys.readouterr().err.splitlines()[0] == (
        f"trtlint: project {proj.resolve()} (profile generic, detected); its creators and TensorRT's plugin library "
        "judge the plugin nodes, against TensorRT 11.1")
