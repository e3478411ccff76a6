"""The Python frontend's speed helpers (frontends/python/fast.py) give exactly what they replace."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from trtlint.base.facts import to_json
from trtlint.frontends import ExtractContext, SourceFile
import trtlint
import trtlint.frontends
from trtlint.frontends import python as pyfe
from trtlint.frontends.python import cst as python_cst
from trtlint.frontends.python import fast

REPO = Path(__file__).resolve().parents[2]


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env

TEXTS = [
    "",
    "x = 1\n",
    "net.add_conv(x)\n",
    "xnet.add_conv(x)\n",
    "subnet.add_conv(x)\n",
    "a_network . add_relu (y)\n",
    "self.network.add_relu(y)\n",
    "(network).add_relu(y)\n",
    "operation('Foo', x)\n",
    "my_operation('Foo', x)\n",
    "cooperation (x)\n",
    "trt.BuilderFlag.FP16\n",
    "trt.BuilderFlag.FP16X\n",
    "xBuilderFlag.FP16\n",
    "def my_validator (node):\n    pass\n",
    "def enqueue(self):\n    pass\n",
    "lib.impl ('op', fn)\n",
    "torch.library.define('x', 's')\n",
    "import tensorrt_bindings.plugin as trtp\n",
    "engine.num_bindings\n",
    "engine.num_bindings_x\n",
    "é network.add_x(1)\n",
    "ünet.add_x(1)\n",
]


def _parts():
    pat = fast.prefilter(("operation", "my_op"))
    return pat.parts


@pytest.mark.parametrize("text", TEXTS)
def test_fast_search_agrees_with_the_regex(text):
    parts = _parts()
    got = fast.FastSearch(parts).search(text)
    assert (got is None) == (re.compile("|".join(parts)).search(text) is None)
    for p in parts:  # alternative by alternative, too
        m = fast.FastSearch([p]).search(text)
        assert (m is None) == (re.search(p, text) is None), p
        if m is not None:  # a real match of that alternative
            assert re.compile(p).match(text, m.start()) is not None


def test_fast_search_on_real_sources():
    parts = _parts()
    rx = re.compile("|".join(parts))
    fs = fast.FastSearch(parts)
    files = sorted(Path(trtlint.__file__).parent.rglob("*.py"))
    assert files
    hits = 0
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert (fs.search(text) is None) == (rx.search(text) is None), f
        hits += fs.search(text) is not None
    assert 0 < hits < len(files)


def test_required_literals():
    assert fast.required_literals(r"\b(?:net|network)\s*\.\s*add_\w+\s*\(") == ("add_",)
    assert fast.required_literals(r"library\.(?:define|impl)\s*\(") == ("library.define", "library.impl")
    assert fast.required_literals(r"\w+\s*\(") == ("(",)
    assert fast.required_literals(r"\w+") is None


SAMPLE = (
    "import tensorrt as trt  # é\n"
    "@decorate(\n"
    "    a=1)\n"
    "def f(x, *, y: 'int' = 2):\n"
    "\tif x:\n"
    "\t\treturn ((x + y))\n"
    "\telse:\n"
    "\t\tz = {'k': [1, 2], **x}; del z['k']\n"
    "class C(trt.IPluginV2DynamicExt):\n"
    '    s = """a\n'
    'ü"""\n'
    "    def enqueue(self, stream):\n"
    "        net.add_relu(self.x)  # comment\n"
    "        for i in range(3): pass\n"
    "        while True:\n"
    "            break\n"
    "        try:\n"
    "            import os\n"
    "        except (ValueError, OSError) as e:\n"
    "            raise\n"
    "lambda q: q\n"
    "x = [i async for i in y] if z else f'{a!r:>{w}}'\n"
)


@pytest.mark.parametrize("text", [SAMPLE, SAMPLE.replace("\n", "\r\n")])
def test_fast_positions_equal_the_position_provider(text):
    module = cst.parse_module(text)
    got = fast.fast_positions(module)
    want = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    assert set(got) == {id(n) for n in want}
    for node, r in want.items():
        assert got[id(node)] == (r.start.line, r.start.column, r.end.line, r.end.column), node


class _Recorder(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.log: list = []

    def visit_Name(self, node):
        self.log.append(("visit", "Name", node.value))

    def visit_Call(self, node):
        self.log.append(("visit", "Call", id(node)))

    def leave_Call(self, node):
        self.log.append(("leave", "Call", id(node)))

    def visit_FunctionDef(self, node):
        self.log.append(("visit", "FunctionDef", node.name.value))
        return node.name.value != "enqueue"  # children of enqueue are skipped

    def leave_FunctionDef(self, node):
        self.log.append(("leave", "FunctionDef", node.name.value))

    def visit_If(self, node):
        self.log.append(("visit", "If", id(node)))

    def leave_If(self, node):
        self.log.append(("leave", "If", id(node)))

    def visit_Else(self, node):
        self.log.append(("visit", "Else", id(node)))

    def leave_Assign(self, node):
        self.log.append(("leave", "Assign", id(node)))

    def visit_SimpleString(self, node):
        self.log.append(("visit", "SimpleString", node.value))

    def visit_Comma(self, node):
        self.log.append(("visit", "Comma", id(node)))


class _FastRecorder(fast.FastVisitMixin, _Recorder):
    pass


def test_fast_visit_calls_the_same_hooks_in_the_same_order():
    module = cst.parse_module(SAMPLE)
    slow, quick = _Recorder(), _FastRecorder()
    module.visit(slow)
    module.visit(quick)
    assert quick.log == slow.log
    assert any(e[1] == "Name" for e in slow.log) and any(e[1] == "Comma" for e in slow.log)


def test_attribute_hooks_are_refused():
    class Bad(fast.FastVisitMixin, cst.CSTVisitor):
        def visit_Call_func(self, node):
            pass

    with pytest.raises(TypeError):
        fast.check_no_attribute_hooks(Bad)
    fast.check_no_attribute_hooks(python_cst.MainVisitor)
    from trtlint.frontends.python import torchtrt as python_torchtrt

    fast.check_no_attribute_hooks(python_torchtrt.TorchTrtExtractor)


NO_TRIGGER = (
    "# passes the prefilter (plugin_version, create_plugin) but calls nothing the extractors record\n"
    "def set_int4_gemm_plugin_version(v):\n"
    "    global _V\n"
    "    _V = v\n"
    "HELP = 'create_plugin(...) is not called here'\n"
)
TRIGGERS = [
    "import tensorrt as trt\nreg = trt.get_plugin_registry()\nplugin_version = 1\n",
    "def f(g):\n    plugin_version = 1\n    return g.op('trt::Foo', x_i=plugin_version)\n",
    "from onnx.helper import make_node as mk\nplugin_version = 1\nmk('Foo', [], [], domain='x')\n",
    "import tensorrt as trt\nclass P(trt.IPluginCreator):\n    plugin_version = '1'\n",
    "def f(network):\n    network.add_relu(x)\n",
    "def my_validator(node, settings):\n    return True\n",
    "from torch.library import custom_op\n@custom_op('ns::op', mutates_args=())\ndef op(x): return x\n",
    "import tensorrt as trt\nplugin_version = 1\nn = engine.num_bindings\n",
]


def _facts(text: str, rel: str = "pkg/mod.py"):
    src = SourceFile(path=Path("/nonexistent") / rel, rel=rel, kind="python", digest="d", text=text)
    return to_json(pyfe.extract(src, ExtractContext(root=Path("/nonexistent"))))


NO_TRIGGERS = [
    NO_TRIGGER,
    # an API name of the deprecation pack, but no tensorrt import: API uses are not recorded
    "import numpy as np\nn = engine.num_bindings  # create_plugin\n",
    # ``register`` counts only as a tensorrt.plugin decorator
    "import atexit\natexit.register(print)  # plugin_version\n",
]


def test_libcst_skip_gives_the_facts_of_the_full_path(monkeypatch):
    for text in NO_TRIGGERS:
        assert pyfe.might_have_facts(text), text
        assert not fast.libcst_facts_possible(ast.parse(text), text, ("operation",)), text
    for text in TRIGGERS:
        assert fast.libcst_facts_possible(ast.parse(text), text, ("operation",)), text
    skipped = {t: _facts(t) for t in NO_TRIGGERS + TRIGGERS}
    monkeypatch.setattr(fast, "libcst_facts_possible", lambda *a: True)
    for t, got in skipped.items():
        assert got == _facts(t), t


def test_a_relative_import_inside_a_tensorrt_package_may_name_tensorrt(monkeypatch):
    text = "from . import plugin as trtp\n@trtp.autotune('ns::Foo')\ndef foo(x):\n    return x\n"
    assert fast.libcst_facts_possible(ast.parse(text), text, ("operation",), "tensorrt/foo.py")
    assert not fast.libcst_facts_possible(ast.parse(text), text, ("operation",), "pkg/foo.py")
    got = _facts(text, "tensorrt/foo.py")
    assert [q["plugin_id"] for q in got["qdp_defs"]] == ["ns::Foo"]
    assert _facts(text, "pkg/foo.py")["qdp_defs"] == []
    monkeypatch.setattr(fast, "libcst_facts_possible", lambda *a: True)
    assert _facts(text, "pkg/foo.py")["qdp_defs"] == []
    # and every trigger sample does have facts (so the skip would have lost something)
    for t in TRIGGERS:
        ff = _facts(t)
        assert any(v for k, v in ff.items() if isinstance(v, list) and k != "problems"), t


def test_deep_nesting_takes_the_libcst_path():
    text = "plugin_version = " + "[" * 60 + "1" + "]" * 60 + "\n"
    assert fast.libcst_facts_possible(ast.parse(text), text, ("operation",))


def test_walk_is_ast_walk_without_expression_contexts():
    files = sorted(Path(trtlint.frontends.__file__).parent.rglob("*.py")) + [None]
    for f in files:
        text = SAMPLE if f is None else f.read_text(encoding="utf-8")
        tree = ast.parse(text)
        want = [n for n in ast.walk(tree) if not isinstance(n, ast.expr_context)]
        got = list(fast.walk(tree))
        assert len(got) == len(want) and all(a is b for a, b in zip(got, want)), f


def test_fast_visit_walks_like_libcst_without_rebuilding():
    files = [None] + sorted(Path(trtlint.frontends.__file__).parent.rglob("*.py"))
    for f in files:
        module = cst.parse_module(SAMPLE if f is None else f.read_text(encoding="utf-8"))
        slow, quick = _Recorder(), _FastRecorder()
        module.visit(slow)
        fast.visit(module, quick)
        assert quick.log == slow.log, f


def _concrete_node_types() -> set:
    import inspect

    from libcst._nodes.base import CSTNode

    seen, todo = set(), [CSTNode]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
    return {t for t in seen if not inspect.isabstract(t) and t.__module__.startswith("libcst.")}


def test_every_concrete_libcst_node_type_has_a_child_order():
    types = _concrete_node_types()
    assert len(types) > 150
    assert [t for t in types if fast._child_order(t) is None] == []
    assert fast._child_order(cst.Call) == ("lpar", "func", "whitespace_after_func", "whitespace_before_args", "args",
                                           "rpar")
    assert fast._child_order(cst.Name) == ()  # a leaf: not descended into


def test_a_visit_reads_the_child_order_of_the_types_it_meets_only():
    # reading libcst's source for every node type cost each worker ~0.3 s before its first file
    code = (
        "import sys\n"
        "from trtlint.frontends.python import fast\n"
        "import libcst as cst\n"
        "class V(fast.FastVisitMixin, cst.CSTVisitor):\n"
        "    pass\n"
        "fast.visit(cst.parse_module('x = f(1)\\n'), V())\n"
        "names = sorted(t.__name__ for t in fast._ORDERS)\n"
        "assert 'Call' in names and 'Assign' in names, names\n"
        "assert 'ClassDef' not in names and 'Lambda' not in names and len(names) < 40, names\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env())
    assert r.returncode == 0, r.stderr