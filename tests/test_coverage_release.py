"""`trtlint coverage` agrees with `trtlint check` and with the TensorRT release it names (issue 32, deliverable 4):
one dispatch for both commands, the importer list per release, which project judged the nodes, and what to do
next. Real ONNX models written with onnx.helper, real projects in tmp_path."""

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


def save(path: Path, nodes, *, opset=17, extra=(("trt", 1), ("acme", 1)), inits=()) -> Path:
    names = sorted({i for n in nodes for i in n.input if i} - {o for n in nodes for o in n.output} - {i.name for i in inits})
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(x, F, [1, 2, 4, 8]) for x in names],
                          [helper.make_tensor_value_info(nodes[-1].output[0], F, None)], initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra])
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(m, str(path))
    return path


def by_name(report) -> dict:
    return {n.logical.rsplit("/", 1)[-1]: n for m in report.models for n in m.nodes}


def check_json(root: Path, capsys) -> list[dict]:
    main(["check", str(root), "--format", "json", "--no-cache", "--no-progress"])
    return json.loads(capsys.readouterr().out)["diagnostics"]


# ---------------------------------------------------------------------------------------------------------
# one classification for both commands


def test_a_node_check_reports_is_a_problem_not_a_project_plugin(tmp_path, capsys):
    """TRT103: the node sets an attribute the creator does not declare (the parser drops it). check reports it;
    coverage said "project plugin" (it ran only the TRT5xx rules): now "plugin node with a problem"."""
    (tmp_path / "trtlint.toml").write_text("", encoding="utf-8")
    (tmp_path / "cpp" / "fooPlugin.cpp").parent.mkdir()
    (tmp_path / "cpp" / "fooPlugin.cpp").write_text(creator_cpp("FooPlugin"), encoding="utf-8")
    model = save(tmp_path / "models" / "m.onnx", [
        helper.make_node("FooPlugin", ["x"], ["t"], name="good", domain="acme", alpha=1.0),
        helper.make_node("FooPlugin", ["t"], ["u"], name="dropped", domain="acme", alpha=1.0, gamma=2.0),
        helper.make_node("FooPlugin", ["u"], ["y"], name="dropped_too", domain="acme", alpha=3.0, gamma=4.0),
    ])
    found = [d for d in check_json(tmp_path, capsys) if d["location"]["path"] == "models/m.onnx"]
    assert [d["code"] for d in found] == ["TRT103"], found
    r = coverage([model], root=tmp_path, jobs=1, use_cache=False)
    ns = by_name(r)
    assert ns["good"].cls == "project", ns["good"].detail
    bad = ns["dropped"]
    assert bad.cls == "problem" and bad.codes == ("TRT103",), bad.detail
    assert ns["dropped_too"].cls == "problem", ns["dropped_too"].detail  # the finding groups it ("1 more node")
    assert "creator FooPluginCreator" in bad.detail and "gamma" in bad.detail
    assert bad.hint.startswith("fix what TRT103 says")


def test_check_and_coverage_judge_the_release_the_project_targets(tmp_path, capsys):
    """A project that targets TensorRT 10.1 (tensorrt-version): its parser has no Attention importer (10.14),
    so check reports the node (TRT501) and coverage, without --tensorrt, calls it unsupported; targeting 10.14
    both are quiet."""
    model = save(tmp_path / "models" / "m.onnx", [helper.make_node("Attention", ["q", "k", "v"], ["y"], name="att")], opset=23)
    for release, expect in (("10.1", "unsupported"), ("10.14", "builtin")):
        (tmp_path / "trtlint.toml").write_text(f'tensorrt-version = "{release}"\n', encoding="utf-8")
        codes = [d["code"] for d in check_json(tmp_path, capsys) if d["location"]["path"] == "models/m.onnx"]
        n = by_name(coverage([model], root=tmp_path, jobs=1, use_cache=False))["att"]
        assert n.cls == expect, (release, n.detail)
        assert codes == (["TRT501"] if expect == "unsupported" else []), (release, codes)
        if expect == "unsupported":
            assert "since TensorRT 10.14, not in 10.1" in n.detail


# ---------------------------------------------------------------------------------------------------------
# the importer list per release


@pytest.mark.parametrize(
    "op, inputs, before, since",
    [
        ("STFT", ["sig", "step"], "10.4", "10.5"),
        ("HannWindow", ["size"], "10.1", "10.4"),
        ("Attention", ["q", "k", "v"], "10.13", "10.14"),
        ("RotaryEmbedding", ["x", "cos", "sin"], "10.14", "10.15"),
        ("RMSNormalization", ["x", "scale"], "10.14", "10.15"),
        ("TensorScatter", ["cache", "update"], "10.14", "10.15"),
        ("GroupNormalization", ["x", "scale", "bias"], "8.5", "8.6"),
        ("Hardmax", ["x"], "9.1", "9.2"),
        ("DeformConv", ["x", "w", "offset"], "10.0", "10.1"),
    ],
)
def test_tensorrt_release_changes_the_verdict(tmp_path, op, inputs, before, since):
    model = save(tmp_path / "m.onnx", [helper.make_node(op, inputs, ["y"], name="n")], opset=24)
    old = by_name(coverage([model], no_project=True, tensorrt=before))["n"]
    new = by_name(coverage([model], no_project=True, tensorrt=since))["n"]
    assert old.cls == "unsupported" and f"since TensorRT {since}, not in {before}" in old.detail, old.detail
    assert f"TensorRT {since} and newer import it" in old.hint, old.hint
    assert new.cls == "builtin", new.detail


def test_an_importer_a_release_removed(tmp_path):
    model = save(tmp_path / "m.onnx", [helper.make_node("TRT_RNNv2", ["x"], ["y"], name="n", domain="trt")])
    assert by_name(coverage([model], no_project=True, tensorrt="9.3"))["n"].cls == "builtin"
    n = by_name(coverage([model], no_project=True, tensorrt="10.0"))["n"]
    assert n.cls == "unsupported" and "up to TensorRT 9.3, not in 10.0" in n.detail, n.detail


def test_the_command_line_release_changes_the_exit_code(tmp_path, capsys):
    model = save(tmp_path / "m.onnx", [helper.make_node("HannWindow", ["size"], ["y"], name="win")])
    assert main(["coverage", "--no-project", str(model), "--tensorrt", "10.1", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["tensorrt"] == "10.1" and data["models"][0]["tensorrt"] == "10.1"
    assert data["models"][0]["nodes"][0]["class"] == "unsupported"
    assert main(["coverage", "--no-project", str(model), "--tensorrt", "10.4", "--format", "json"]) == 0


def test_the_importer_pack_names_its_sources(tmp_path):
    """The per-release data records where each release's list came from (the generator's inputs)."""
    from trtlint.config.packs import load_packs

    imp = load_packs().onnx_importers
    assert (imp.oldest, imp.newest) == ("8.5", "10.15")
    assert imp.since["STFT"] == "10.5" and imp.since["Attention"] == "10.14" and imp.until["TRT_RNNv2"] == "9.3"
    text = (Path(__file__).resolve().parent.parent / "rules" / "onnx_tensorrt.yaml").read_text(encoding="utf-8")
    assert "10.1-GA 96e781103cfc4adf4a6bb557e94bac8e693f6f4c" in text and "bench/onnx_importers_gen.py" in text


# ---------------------------------------------------------------------------------------------------------
# which project judged the nodes


def test_outside_a_project_the_current_directory_is_not_indexed_silently(tmp_path, capsys, monkeypatch):
    """A directory that is a project only because it is the current directory is not indexed: coverage says so,
    judges the plugin nodes against TensorRT's library only (the creator lying beside the model is not used), and
    writes no cache there."""
    here = tmp_path / "downloads"
    (here / "cpp").mkdir(parents=True)
    (here / "cpp" / "fooPlugin.cpp").write_text(creator_cpp("FooPlugin"), encoding="utf-8")
    model = save(here / "m.onnx", [helper.make_node("FooPlugin", ["x"], ["y"], name="foo", domain="acme", alpha=1.0)])
    monkeypatch.chdir(here)
    assert main(["coverage", "m.onnx", "--format", "json"]) == 1
    out, err = capsys.readouterr()
    assert err.splitlines()[0] == (
        f"trtlint: no project ({here.resolve()} is only the current directory: no config file, repository root or "
        "profile markers above the models, so it is not indexed): plugin nodes are judged against TensorRT's plugin "
        "library only (give --root PROJECT for a project's creators), against TensorRT 11.1")
    assert json.loads(out)["models"][0]["nodes"][0]["class"] == "unsupported"
    assert not (here / ".trtlint_cache").exists()
    # --root makes it the project: its creator answers
    assert main(["coverage", str(model), "--root", str(here), "--format", "json", "--no-cache"]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines()[0].startswith(f"trtlint: project {here.resolve()} (profile generic, detected); ")
    assert json.loads(out)["models"][0]["nodes"][0]["class"] == "project"


# ---------------------------------------------------------------------------------------------------------
# what to do next


def test_each_unsupported_or_restricted_node_says_what_to_do_next(tmp_path):
    axes = helper.make_node("Shape", ["x"], ["a"], name="shape")
    nodes = [
        helper.make_node("EfficientNMS_TRX", ["x"], ["t1"], name="near", domain="trt", score_threshold=0.5),
        helper.make_node("FancyOp", ["t1"], ["t2"], name="fancy", domain="acme", alpha=1.0, ks=[1, 2]),
        helper.make_node("EfficientNMS_TRT", ["t2"], ["t3"], name="ver", domain="trt", plugin_version="7"),
        helper.make_node("LayerNormalization", ["t3", "s"], ["t4"], name="ln"),
        helper.make_node("Resize", ["t4", "", "sc"], ["t5"], name="rs", coordinate_transformation_mode="tf_crop_and_resize"),
        axes,
        helper.make_node("ReduceSum", ["t5", "a"], ["y"], name="sum"),
    ]
    inits = [helper.make_tensor("s", F, [8], [1.0] * 8), helper.make_tensor("sc", F, [4], [1, 1, 2, 2])]
    ns = by_name(coverage([save(tmp_path / "m.onnx", nodes, inits=inits)], no_project=True, tensorrt="8.5"))
    assert ns["near"].hint == "did you mean 'EfficientNMS_TRT'? libnvinfer_plugin (TensorRT) registers it"
    assert ns["fancy"].hint == "write a plugin: a creator registering 'FancyOp' with the fields alpha (FLOAT), ks (INTS)"
    assert ns["ver"].hint == "set plugin_version to '1' (what libnvinfer_plugin (TensorRT) registers)"
    ln = ns["ln"]
    assert ln.cls == "unsupported" and "TensorRT 8.6 and newer import it" in ln.hint
    assert "export at ONNX opset 16 or older (ONNX has LayerNormalization from opset 17)" in ln.hint
    assert ns["rs"].cls == "restricted" and ns["rs"].hint.startswith("export with coordinate_transformation_mode one of 'half_pixel'")
    assert ns["sum"].cls == "restricted" and ns["sum"].hint.startswith("make input 1 (axes) of ReduceSum a constant")
    assert ns["shape"].hint == ""


def test_the_next_step_is_in_every_output_format(tmp_path, capsys):
    model = save(tmp_path / "m.onnx", [helper.make_node("FancyOp", ["x"], ["y"], name="fancy", domain="acme", alpha=1.0)])
    assert main(["coverage", "--no-project", str(model), "--format", "markdown"]) == 1
    md = capsys.readouterr().out
    assert "| why / where | next step |" in md and "write a plugin: a creator registering 'FancyOp' with the fields alpha (FLOAT) |" in md
    assert main(["coverage", "--no-project", str(model), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)["models"][0]
    assert data["nodes"][0]["hint"] == data["ops"][0]["hint"] == "write a plugin: a creator registering 'FancyOp' with the fields alpha (FLOAT)"
    assert main(["coverage", "--no-project", str(model)]) == 1
    assert "next step" in capsys.readouterr().out
