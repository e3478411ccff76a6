"""The ONNX frontend on models built with onnx.helper (no binary fixtures), and on bad input."""

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from trtlint.frontends import ExtractContext, SourceFile
from trtlint.frontends import onnx as fe

from tests.helpers import check_project, write_project


def extract(tmp_path: Path, data: bytes, rel: str = "models/m.onnx"):
    p = tmp_path / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    return fe.extract(SourceFile(p, rel, "onnx", "d"), ExtractContext(root=tmp_path))


def _model(nodes, opsets=(("", 17), ("trt_plugins", 1)), functions=(), initializers=()):
    g = helper.make_graph(
        nodes, "g0", [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info(n.output[0], TensorProto.FLOAT, None) for n in nodes], initializer=list(initializers),
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets], functions=list(functions))
    return m.SerializeToString()


def test_nodes_attributes_subgraphs_and_functions(tmp_path):
    then_g = helper.make_graph([helper.make_node("BarPlugin", ["x"], ["t"], name="bar", domain="trt_plugins", k=3)], "then", [], [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
    else_g = helper.make_graph([helper.make_node("Identity", ["x"], ["e"], name="id")], "else", [], [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)])
    fn = helper.make_function("local", "Block", ["a"], ["b"], [helper.make_node("Relu", ["a"], ["b"], name="r")], [helper.make_opsetid("", 17)])
    nodes = [
        helper.make_node("Relu", ["x"], ["y0"], name="relu", alpha_unused=1),
        helper.make_node(
            "FooPlugin", ["x", "x"], ["y1"], name="foo", domain="trt_plugins",
            alpha=0.5, n=2**33, mode="fast", ks=[1, 2, -(2**40)], fs=[1.0, 2.0], names=["a", "b"],
            w=numpy_helper.from_array(np.zeros((2, 3), dtype=np.int64), "w"), plugin_version="2",
        ),
        helper.make_node("If", ["c"], ["y2"], name="branch", then_branch=then_g, else_branch=else_g),
        helper.make_node("Block", ["x"], ["y3"], name="blk", domain="local"),
    ]
    ff = extract(tmp_path, _model(nodes, opsets=(("", 17), ("trt_plugins", 1), ("local", 1)), functions=[fn]))
    assert ff.problems == ()
    (m,) = ff.models
    assert m.graph == "g0" and m.opset_imports == (("", 17), ("trt_plugins", 1), ("local", 1))
    assert m.functions == (("local", "Block", ("",)),)
    got = [(n.graph, n.name, n.op_type, n.domain, n.index, n.standard, n.logical) for n in m.nodes]
    assert got == [
        ("g0", "relu", "Relu", "", 0, True, "g0/relu"),
        ("g0", "foo", "FooPlugin", "trt_plugins", 1, False, "g0/foo"),
        ("g0/branch/else_branch", "id", "Identity", "", 0, True, "g0/branch/else_branch/id"),  # helper sorts attributes
        ("g0/branch/then_branch", "bar", "BarPlugin", "trt_plugins", 0, False, "g0/branch/then_branch/bar"),
        ("g0", "branch", "If", "", 2, True, "g0/branch"),
        ("g0", "blk", "Block", "local", 3, False, "g0/blk"),
        ("function:local::Block", "r", "Relu", "", 0, True, "function:local::Block/r"),
    ]
    relu, foo = m.nodes[0], m.nodes[1]
    assert relu.attrs == ()  # standard default-domain ops keep no attributes
    assert foo.num_inputs == 2 and foo.span.path == "models/m.onnx" and foo.span.line == 1
    a = {x.name: x for x in foo.attrs}
    assert (a["alpha"].type, a["alpha"].value) == ("FLOAT", "0.5")
    assert (a["n"].type, a["n"].ints, a["n"].int_overflow) == ("INT", (2**33,), (2**33,))
    assert (a["mode"].type, a["mode"].value) == ("STRING", "fast")
    assert (a["ks"].type, a["ks"].length, a["ks"].ints, a["ks"].int_overflow) == ("INTS", 3, (1, 2, -(2**40)), (-(2**40),))
    assert (a["fs"].type, a["fs"].value) == ("FLOATS", "[1, 2]")
    assert (a["names"].type, a["names"].value) == ("STRINGS", "['a', 'b']")
    assert (a["w"].type, a["w"].tensor_type, a["w"].length) == ("TENSOR", "INT64", 6)
    assert (a["plugin_version"].type, a["plugin_version"].value) == ("STRING", "2")


def test_huge_attribute_is_summarised_not_copied(tmp_path):
    big = list(range(1_000_000)) + [2**40, -(2**35)] * 10
    node = helper.make_node("FooPlugin", ["x"], ["y"], name="foo", domain="trt_plugins", big=big, note="x" * 100_000)
    ff = extract(tmp_path, _model([node]))  # its speed is measured by bench/, not asserted here
    a = {x.name: x for x in ff.models[0].nodes[0].attrs}
    assert a["big"].length == len(big) and len(a["big"].ints) == fe.MAX_INTS_KEPT
    assert a["big"].int_overflow == (2**40, -(2**35), 2**40, -(2**35)) and a["big"].value is None
    assert len(a["note"].value) <= 201
    # the facts stay small enough to cache
    from trtlint.base.facts import to_json

    assert len(json.dumps(to_json(ff))) < 20_000


def test_bad_files_are_problems_not_exceptions(tmp_path):
    good = _model([helper.make_node("Relu", ["x"], ["y"])])
    for data, fragment in [
        (good[: len(good) // 2], "protobuf decoding failed"),
        (b"\x89PNG\r\n\x1a\n" + bytes(range(200)), "not a valid ONNX model"),
        (b"\x08\x00", "no IR version or no graph"),  # valid protobuf, not a model
        (b"", "empty file"),
    ]:
        ff = extract(tmp_path, data)
        assert ff.models == () and len(ff.problems) == 1 and fragment in ff.problems[0].message, (data[:10], ff.problems)


def test_external_data_is_never_read_and_outside_root_is_reported(tmp_path):
    t = numpy_helper.from_array(np.zeros(4, dtype=np.float32), "w")
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    t.external_data.add(key="location", value="../../outside/weights.bin")
    inside = numpy_helper.from_array(np.zeros(4, dtype=np.float32), "v")
    inside.ClearField("raw_data")
    inside.data_location = TensorProto.EXTERNAL
    inside.external_data.add(key="location", value="weights.bin")
    ff = extract(tmp_path, _model([helper.make_node("Relu", ["x"], ["y"])], initializers=[t, inside]))
    assert ff.models[0].external_data == ("../../outside/weights.bin", "weights.bin")
    assert [p.message for p in ff.problems] == ["external tensor data outside the project root is never read: ../../outside/weights.bin"]
    assert ff.problems[0].partial


def test_subgraphs_deeper_than_the_limit_are_partial(tmp_path, monkeypatch):
    monkeypatch.setattr(fe, "MAX_GRAPH_DEPTH", 1)
    inner = helper.make_graph([helper.make_node("Relu", ["x"], ["i"])], "inner", [], [helper.make_tensor_value_info("i", TensorProto.FLOAT, None)])
    mid = helper.make_graph([helper.make_node("If", ["c"], ["m"], then_branch=inner, else_branch=inner)], "mid", [], [helper.make_tensor_value_info("m", TensorProto.FLOAT, None)])
    ff = extract(tmp_path, _model([helper.make_node("If", ["c"], ["y"], then_branch=mid, else_branch=mid)]))
    assert ff.problems and ff.problems[0].partial and "nested deeper" in ff.problems[0].message
    assert ff.models[0].nodes  # what could be read is kept


def test_model_findings_carry_logical_locations_in_sarif(tmp_path):
    from trtlint.report import ReportContext, render

    write_project(tmp_path, {"models/m.onnx": _model([helper.make_node("ZipMap", ["x"], ["y"], name="zm", domain="ai.onnx.ml")], opsets=(("", 17), ("ai.onnx.ml", 3)))})
    res = check_project(tmp_path, select=["TRT501"])
    (d,) = res.diagnostics
    assert d.logical == "g0/zm" and d.span.path == "models/m.onnx"
    sarif = json.loads(render("sarif", res.diagnostics, ReportContext(root=tmp_path, rules=res.rules)))
    loc = sarif["runs"][0]["results"][0]["locations"][0]
    assert loc["logicalLocations"] == [{"name": "zm", "fullyQualifiedName": "g0/zm"}]
    assert loc["physicalLocation"]["artifactLocation"]["uri"] == "models/m.onnx"


def test_onnx_is_dispatched_and_checker_agrees_with_trt506(tmp_path):
    """TRT506's claim is onnx.checker's: a custom op in the default domain is rejected."""
    data = _model([helper.make_node("FooPlugin", ["x"], ["y"], name="foo")], opsets=(("", 17),))
    import pytest

    with pytest.raises(onnx.checker.ValidationError):
        onnx.checker.check_model(onnx.load_model_from_string(data))
    write_project(tmp_path, {"m.onnx": data})
    res = check_project(tmp_path, select=["TRT506"])
    assert [d.logical for d in res.diagnostics] == ["g0/foo"]


def test_standard_ops_pack_matches_the_installed_onnx():
    """rules/onnx_standard_ops.yaml is onnx.defs' table (regenerate: python -m trtlint.frontends.onnx --write-standard-ops)
    for the onnx version it records. Another onnx release may define more operators: then the table is not
    compared (a new onnx on the CI machine is not a code change), and the skip says how to update the pack."""
    import yaml

    from trtlint.config.packs import shipped_dir

    recorded = yaml.safe_load((shipped_dir() / "onnx_standard_ops.yaml").read_text(encoding="utf-8"))["onnx_standard_ops"]["onnx_version"]
    shipped = {d: sorted(v) for d, v in fe.standard_ops().items()}
    assert "Relu" in shipped.get("", ())  # the pack loaded (the frontend reads it)
    if onnx.__version__ != recorded:
        pytest.skip(f"rules/onnx_standard_ops.yaml was generated from onnx {recorded}, onnx {onnx.__version__} is "
                    "installed: regenerate it with `python -m trtlint.frontends.onnx --write-standard-ops`")
    assert shipped == fe.standard_ops_from_onnx()


def test_extraction_does_not_import_the_onnx_package(tmp_path):
    """`import onnx` costs seconds per worker; the frontend parses with onnx's protobuf module alone."""
    import subprocess
    import sys

    p = tmp_path / "m.onnx"
    p.write_bytes(_model([helper.make_node("FooPlugin", ["x"], ["y"], domain="trt_plugins", a=1)]))
    code = (
        "import sys; from pathlib import Path\n"
        "from trtlint.frontends import SourceFile, ExtractContext\n"
        "from trtlint.frontends import onnx as fe\n"
        f"ff = fe.extract(SourceFile(Path({str(p)!r}), 'm.onnx', 'onnx', 'd'), ExtractContext(root=Path({str(tmp_path)!r})))\n"
        "assert ff.models[0].nodes[0].attrs[0].name == 'a', ff\n"
        "print('onnx' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(Path(__file__).parents[2]))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
