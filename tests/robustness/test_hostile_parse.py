"""Every parse under the same limits (issue 37, deliverable 2): hostile files in a project of 1-3 files with
``-j 1``, where files used to be parsed in trtlint's own process.

Each attack is generated here (a few lines of code; nothing large is committed) and trtlint runs as a user runs
it, in a subprocess under a 2 GB address-space cap and a 60 s timeout. Before the change: the ONNX protobuf
bomb ended the run in an internal error (exit 2: "Arena alloc failed" under the cap; 5.7 GB and a hang
without it), the 3.8 MB one-line sum hung for minutes in libcst (7.7 GB and an abort without the cap), the
100 000 nested parentheses segfaulted (exit -11), through ``check .``, ``check -`` and ``coverage`` alike.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import REPO, cap_memory

TIMEOUT = 60

# a normal file beside the hostile one: its finding must still be reported
GOOD = (
    "import torch\n"
    "from torch_tensorrt.dynamo.conversion._ConverterRegistry import dynamo_tensorrt_converter\n"
    "@dynamo_tensorrt_converter(torch.ops.aten.add.out)\n"
    "def conv(ctx, target, args, kwargs, name):\n"
    "    return args[0]\n"
)
GOOD_FINDING = ("good.py", "TRT603", "converter key torch.ops.aten.add.out of 'conv' is an out= overload")


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | 0x80 if n else b)
        if not n:
            return bytes(out)


def onnx_bomb(size: int = 24 << 20) -> bytes:
    """A ModelProto (ir_version 8) whose graph holds 12.6 million empty nodes: two bytes each in the file,
    ~150 in protobuf's memory (1.9 GB to parse; the frontend's walk over them took 5.7 GB and never ended)."""
    graph = b"\x0a\x00" * ((size - 16) // 2)  # GraphProto.node (field 1), length 0
    return b"\x08\x08" + b"\x3a" + _varint(len(graph)) + graph  # ir_version = 8; ModelProto.graph (field 7)


def python_long_line(size: int = 3_800_000) -> str:
    """One line, under the 4 MB file-size limit, with a marker that sends it to libcst: a sum of 1.9 million
    terms (CPython gives up on it; libcst takes minutes and gigabytes)."""
    head = "import onnx\nn = onnx.helper.make_node("
    return head + "1+" * ((size - len(head) - 4) // 2) + "1)\n"


def python_parens(depth: int = 100_000) -> str:
    return "import onnx\nn = onnx.helper.make_node(" + "(" * depth + "1" + ")" * depth + ")\n"


def _trtlint(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "trtlint", *args], cwd=root, capture_output=True, text=True, timeout=TIMEOUT,
        input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL, preexec_fn=cap_memory,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def _findings(r: subprocess.CompletedProcess) -> list[tuple[str, str, str]]:
    assert "Traceback" not in r.stderr and "Process " not in r.stderr, r.stderr
    assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
    return [(d["location"]["path"], d["code"], d["message"]) for d in json.loads(r.stdout)["diagnostics"]]


def _project(root: Path, hostile: dict[str, bytes | str]) -> None:
    (root / "trtlint.toml").write_text("")  # the project root: the test's directory
    (root / "good.py").write_text(GOOD)
    for name, data in hostile.items():
        (root / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def _has_good_finding(found: list[tuple[str, str, str]]) -> bool:
    path, code, start = GOOD_FINDING
    return any(p == path and c == code and m.startswith(start) for p, c, m in found)


ONNX_MESSAGE = ("model.onnx could not be parsed: ONNX model holds more than 2000000 nodes, attributes, tensors and "
                "other parts, over the limit trtlint parses; not analysed")
DEEP_MESSAGE = "{} could not be parsed: syntax error: expression nesting too deep to parse"

ATTACKS = {
    "onnx-bomb": ("model.onnx", onnx_bomb, ONNX_MESSAGE),
    "python-long-line": ("big.py", python_long_line, DEEP_MESSAGE.format("big.py")),
    "python-parens": ("deep.py", python_parens, DEEP_MESSAGE.format("deep.py")),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_hostile_file_in_a_small_project_with_j1_is_trt001_and_the_rest_is_reported(tmp_path, attack):
    name, make, message = ATTACKS[attack]
    _project(tmp_path, {name: make()})
    found = _findings(_trtlint(tmp_path, "check", ".", "--format", "json", "--no-cache", "--no-progress", "-j", "1"))
    assert [m for p, c, m in found if p == name] == [message]
    assert [c for p, c, m in found if p == name] == ["TRT001"]
    assert _has_good_finding(found)


@pytest.mark.parametrize("attack", ["python-long-line", "python-parens"])
def test_hostile_text_on_stdin_is_trt001(tmp_path, attack):
    """``check -``: the text is re-extracted in a worker, never in trtlint's process (the file on disk is harmless)."""
    name, make, message = ATTACKS[attack]
    _project(tmp_path, {name: "x = 1\n"})
    r = _trtlint(tmp_path, "check", "-", "--stdin-filename", name, "--format", "json", "--no-cache", stdin=make())
    found = _findings(r)
    assert [(c, m) for p, c, m in found if p == name] == [("TRT001", message)]


def test_the_onnx_bomb_through_coverage_is_an_error_of_that_model(tmp_path):
    import onnx
    from onnx import helper

    _project(tmp_path, {"model.onnx": onnx_bomb()})
    node = helper.make_node("MyPlugin", ["x"], ["y"], domain="trt.plugins")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", 1, [1])],
                              [helper.make_tensor_value_info("y", 1, [1])])
    onnx.save(helper.make_model(graph), str(tmp_path / "good.onnx"))
    r = _trtlint(tmp_path, "coverage", ".", "--format", "json", "--no-cache")
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
    models = {m["path"]: m for m in json.loads(r.stdout)["models"]}
    assert models["model.onnx"]["error"] == (
        "the model holds more than 2000000 nodes, attributes, tensors and other parts, over the limit trtlint parses")
    assert models["good.onnx"]["error"] is None
    assert [op["op_type"] for op in models["good.onnx"]["ops"]] == ["MyPlugin"]


@pytest.mark.parametrize("stdin", [False, True], ids=["check-dir", "check-stdin"])
def test_a_parser_crash_in_a_small_project_with_j1_costs_only_its_file(tmp_path, stdin):
    """The worker is the guard for what no pre-check knows: a parse that kills its process (a test-only hook
    segfaults the process extracting crash.py; where that was trtlint's own process the run ended with -11).
    Through ``check -`` the file exists only as the text on stdin."""
    _project(tmp_path, {} if stdin else {"crash.py": "x = 1\n"})
    args = ["-", "--stdin-filename", "crash.py"] if stdin else [".", "--no-progress", "-j", "1"]
    r = subprocess.run(
        [sys.executable, "-m", "trtlint", "check", *args, "--format", "json", "--no-cache"],
        cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT, input="x = 1\n" if stdin else None,
        stdin=None if stdin else subprocess.DEVNULL, preexec_fn=cap_memory,
        env={**os.environ, "PYTHONPATH": str(REPO), "TRTLINT_TEST_CRASH_FILE": "crash.py"},
    )
    found = _findings(r)
    assert [(c, m) for p, c, m in found if p == "crash.py"] == [
        ("TRT001", "crash.py could not be parsed: the extraction worker stopped (killed by signal 11) "
                   "while analysing this file; not analysed")]
    if not stdin:  # (check - reports the findings of the file it was given)
        assert _has_good_finding(found)


def _parts(msg) -> int:
    """The messages protobuf makes for ``msg``'s submessages, counted on the parsed object."""
    n = 0
    for fd, value in msg.ListFields():
        if fd.type == fd.TYPE_MESSAGE:
            for sub in (value if fd.is_repeated else [value]):
                n += 1 + _parts(sub)
    return n


def test_the_onnx_scan_counts_what_protobuf_makes_and_passes_a_large_real_model():
    """The budget is exact (the scan's count is protobuf's own, subgraphs, shapes and tensors included), and a
    model of 5 MB of weights and 20 000 nodes (scanned: over 4 MB) is within it."""
    import onnx
    from onnx import TensorProto, helper

    from trtlint.frontends.onnx_budget import over_budget

    sub = helper.make_graph([helper.make_node("Bar", [], ["y"])] * 3, "sub", [],
                            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, "N"])])
    nodes = [helper.make_node("Foo", ["a", "b"], ["c"], name=f"n{i}", domain="x", k=1, ints=[1, 2]) for i in range(20000)]
    nodes.append(helper.make_node("If", ["c"], ["z"], then_branch=sub, else_branch=sub))
    weights = helper.make_tensor("w", TensorProto.FLOAT, [1000, 1000], [0.0] * 1_000_000)
    model = helper.make_model(helper.make_graph(nodes, "g", [], [], initializer=[weights]))
    data = model.SerializeToString()
    assert len(data) > 4 << 20
    n = _parts(onnx.load_from_string(data))
    assert over_budget(data) is None
    assert over_budget(data, parts=n) is None
    assert over_budget(data, parts=n - 1) == f"more than {n - 1} nodes, attributes, tensors and other parts, over the limit trtlint parses"
    assert over_budget(data, parts=n, entries=1000) == "more than 1000 fields, over the limit trtlint parses"


def test_an_onnx_bomb_hidden_in_a_subgraph_tensor_is_counted():
    """Empty ``external_data`` entries of a tensor attribute of a node in an If branch: four levels down."""
    from trtlint.frontends.onnx_budget import over_budget

    def ld(field: int, payload: bytes) -> bytes:
        return _varint(field << 3 | 2) + _varint(len(payload)) + payload

    tensor = b"\x6a\x00" * 3_000_000  # TensorProto.external_data (13), empty
    node = ld(5, ld(5, tensor))  # NodeProto.attribute (5) -> AttributeProto.t (5)
    branch = ld(1, node)  # GraphProto.node
    model = b"\x08\x08" + ld(7, ld(1, ld(5, ld(6, branch))))  # graph -> node -> attribute -> g (6)
    assert over_budget(model) == "more than 2000000 nodes, attributes, tensors and other parts, over the limit trtlint parses"
