"""Shared pieces of the frontend fuzzing: seeds, mutation strategies and the one oracle.

Used by the bounded CI tests (``tests/robustness/test_fuzz_frontends.py``) and by the long run outside CI
(``bench/fuzz.py``). The oracle: a frontend's ``extract`` returns a :class:`~trtlint.base.facts.FileFacts` for the
file it was given, never raises, never reports an *internal error* (a frontend bug caught by its own last line
of defence), and its facts pickle (the fact cache stores them).
"""

from __future__ import annotations

import hashlib
import importlib
import pickle
from pathlib import Path

from hypothesis import strategies as st

from trtlint.base.facts import FileFacts
from trtlint.frontends import ExtractContext, SourceFile

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

# frontend label -> (module, kind, file name the bytes are written to, seed files or texts)
_CPP_SEEDS = [
    "edgellm_mini/cpp/plugins/fooPlugin/fooPlugin.cpp",
    "edgellm_mini/cpp/plugins/fooPlugin/fooPlugin.h",
    "oss_mini/plugin/clipPlugin/clipPlugin.cpp",
    "oss_mini/plugin/clipPlugin/clipPlugin.cu",
    "edgellm_mini/unittests/fooPluginTest.cpp",
]
_PY_SEEDS = [
    "edgellm_mini/tensorrt_edgellm/onnx/custom_translations.py",
    "edgellm_mini/tensorrt_edgellm/onnx/dynamo_translations.py",
    "edgellm_mini/experimental/builder/ops/backend.py",
    "edgellm_mini/experimental/builder/ops/functional/foo.py",
    "oss_mini/python/export_symbolics.py",
    "edgellm_mini/tests/python-unittests/test_foo_plugin.py",
]
_CMAKE_SEEDS = [
    "edgellm_mini/CMakeLists.txt",
    "edgellm_mini/cpp/CMakeLists.txt",
    "oss_mini/plugin/CMakeLists.txt",
]
TESTLIST_SEED = b"""# plugin tests run in CI
tests:
  - test_foo_plugin.py::test_foo_fp16
  - "test_bar_plugin.py::TestBar::test_run[fp32]"
  - test_baz.py
other: {a: 1, b: [x, y]}
"""
PLUGIN_SPEC_SEED = b"""---
name: ClipPlugin
interface: IPluginV3
versions:
  "1":
    inputs:
      - input
    attributes:
      - clipMin
      - clipMax
    attribute_types:
      clipMin: float32
      clipMax: float32
    attribute_length:
      clipMin: 1
      clipMax: 1
    attributes_required:
      - clipMin
      - clipMax
"""
CONFIG_SEED = b"""select = ["ALL"]
ignore = ["TRT002"]
extend-exclude = ["build/**"]
max-file-size = 1048576
tensorrt-version = "10.x"
include-dirs = ["cpp", "include"]
defines = ["ENABLE_FP8=1"]
fail-level = "warning"

[per-file-ignores]
"tests/**" = ["TRT3"]

[severity]
TRT301 = "error"

[test-lists]
files = ["tests/*.yml"]
selector = "nodeid"
"""


def onnx_seed() -> bytes:
    """A small model with a custom-domain node carrying attributes of several types, and a Loop whose body
    subgraph holds another node (the ONNX frontend walks subgraphs)."""
    from onnx import TensorProto, helper

    body = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"], name="inner")],
        "body",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    nodes = [
        helper.make_node(
            "FooPlugin", ["a"], ["b"], name="foo", domain="trt.plugins", axis=2, scale=0.5, mode="fast", dims=[1, 2, 3],
            names=["p", "q"], w=helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0]),
        ),
        helper.make_node("Loop", ["", "", "b"], ["c"], name="loop", body=body),
    ]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("a", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("trt.plugins", 1)])
    return model.SerializeToString()


def _fixture_bytes(rels: list[str]) -> list[bytes]:
    return [(FIXTURES / r).read_bytes() for r in rels]


# label -> (frontend module, kind, file name in the temp dir)
FRONTENDS = {
    "cpp": ("trtlint.frontends.cpp", "cpp", "fuzz.cpp"),
    "cuda": ("trtlint.frontends.cpp", "cuda", "fuzz.cu"),
    "header": ("trtlint.frontends.cpp", "header", "fuzz.h"),
    "python": ("trtlint.frontends.python", "python", "test_fuzz.py"),
    "cmake": ("trtlint.frontends.cmake", "cmake", "CMakeLists.txt"),
    "onnx": ("trtlint.frontends.onnx", "onnx", "fuzz.onnx"),
    "testlist": ("trtlint.frontends.yaml_kind", "yaml", "tests.yml"),
    "plugin-spec": ("trtlint.frontends.yaml_kind", "yaml", "Fuzz_PluginConfig.yaml"),
}


def seeds(label: str) -> list[bytes]:
    if label in ("cpp", "cuda", "header"):
        return _fixture_bytes(_CPP_SEEDS)
    if label == "python":
        return _fixture_bytes(_PY_SEEDS)
    if label == "cmake":
        return _fixture_bytes(_CMAKE_SEEDS)
    if label == "onnx":
        return [onnx_seed()]
    if label == "testlist":
        return [TESTLIST_SEED]
    if label == "plugin-spec":
        return [PLUGIN_SPEC_SEED]
    if label == "config":
        return [CONFIG_SEED]
    raise KeyError(label)


# ---------------------------------------------------------------- strategies

_NASTY = [b"\x00", b"\xff\xfe", b"\xef\xbb\xbf", b"\xc3\x28", b"\r", b"\r\n", b"\t", b"\\\n", b"{", b"}", b"(", b")",
          b"[", b"]", b"<", b">", b"\"", b"'", b"\"\"\"", b"/*", b"*/", b"#", b"${", b"#if 1\n", b"#endif\n",
          b"template<", b"::", b"lambda:", b"def ", b"class ", b"  ", b"\n", b"---\n", b"- ", b": ", b"&a ", b"*a",
          b"!!python/object:os.system ", b"\xe2\x80\xae", b"\xf0\x9f\x98\x80", b"\x1b[31m", b"%"]


@st.composite
def mutated(draw, seed_list: list[bytes]) -> bytes:
    """A real-looking input cut, spliced and corrupted: up to 6 edits (truncate, delete, duplicate, insert
    bytes or a nasty token, flip a byte, swap two slices) of one seed."""
    data = bytearray(draw(st.sampled_from(seed_list)))
    for _ in range(draw(st.integers(0, 6))):
        op = draw(st.sampled_from(["truncate", "delete", "dup", "insert", "nasty", "flip", "swap"]))
        n = len(data)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 200)))
        if op == "truncate":
            del data[i:]
        elif op == "delete":
            del data[i:j]
        elif op == "dup":
            data[i:i] = data[i:j] * draw(st.integers(1, 8))
        elif op == "insert":
            data[i:i] = draw(st.binary(max_size=24))
        elif op == "nasty":
            data[i:i] = draw(st.sampled_from(_NASTY)) * draw(st.integers(1, 4))
        elif op == "flip" and n:
            k = min(i, n - 1)
            data[k] ^= 1 << draw(st.integers(0, 7))
        elif op == "swap" and j > i:
            k = draw(st.integers(0, n))
            piece = bytes(data[i:j])
            del data[i:j]
            k = min(k, len(data))
            data[k:k] = piece
    return bytes(data)


def inputs(label: str) -> st.SearchStrategy[bytes]:
    """Random bytes, random text, and mutated seeds of the frontend ``label``."""
    return st.one_of(
        st.binary(max_size=2048),
        st.text(max_size=1024).map(lambda s: s.encode("utf-8", "surrogatepass")),
        mutated(seeds(label)),
        mutated(seeds(label)),  # weighted: mutated real-looking inputs find more than noise
    )


# ---------------------------------------------------------------- the oracle


def extract_bytes(label: str, data: bytes, workdir: Path) -> FileFacts:
    """Write ``data`` where the frontend ``label`` expects its kind of file and extract it; asserts the oracle."""
    mod, kind, name = FRONTENDS[label]
    fe = importlib.import_module(mod)
    p = workdir / name
    p.write_bytes(data)
    src = SourceFile(path=p, rel=name, kind=kind, digest=hashlib.blake2b(data, digest_size=16).hexdigest())
    ctx = ExtractContext(root=workdir)
    ff = fe.extract(src, ctx)  # must not raise
    assert isinstance(ff, FileFacts), type(ff)
    assert ff.path == name and ff.kind == kind
    internal = [p.message for p in ff.problems if "internal error" in p.message]
    assert not internal, internal
    for prob in ff.problems:
        assert prob.span.path == name and prob.span.line >= 1, prob
    pickle.loads(pickle.dumps(ff))
    return ff


def load_config_bytes(data: bytes, workdir: Path):
    """Write ``data`` as ``trtlint.toml`` and load settings: a broken config is a ConfigError naming the file,
    never another exception."""
    from trtlint.config.settings import ConfigError, load_settings

    (workdir / ".git").mkdir(exist_ok=True)  # the config search stops here
    cfg = workdir / "trtlint.toml"
    cfg.write_bytes(data)
    try:
        return load_settings(workdir)
    except ConfigError as e:
        assert str(cfg) in str(e), str(e)
        return None


def run_oracle(label: str, data: bytes, workdir: Path, stats: dict, fail_dir: Path, prefix: str = "") -> None:
    """The long fuzz runs' oracle (bench/fuzz.py, bench/fuzz_atheris.py): extract ``data`` as a ``label`` input;
    any exception is counted in ``stats`` by type and place and the input is kept in ``fail_dir`` with its
    traceback. ``stats`` holds tried, failed, kinds and slowest."""
    import time
    import traceback

    stats["tried"] += 1
    t = time.perf_counter()
    try:
        if label == "config":
            load_config_bytes(data, workdir)
        else:
            extract_bytes(label, data, workdir)
    except BaseException as e:  # noqa: BLE001 - every failure is a finding (SystemExit too)
        if isinstance(e, KeyboardInterrupt):
            raise
        stats["failed"] += 1
        tb = traceback.extract_tb(e.__traceback__)[-1]
        key = f"{type(e).__name__} at {Path(tb.filename).name}:{tb.lineno}"
        stats["kinds"][key] = stats["kinds"].get(key, 0) + 1
        fail_dir.mkdir(parents=True, exist_ok=True)
        h = prefix + hashlib.sha1(data).hexdigest()[:12]
        (fail_dir / f"{h}.bin").write_bytes(data)
        (fail_dir / f"{h}.txt").write_text(f"{key}\n{e}\n{traceback.format_exc()}", encoding="utf-8")
    stats["slowest"] = max(stats["slowest"], time.perf_counter() - t)
