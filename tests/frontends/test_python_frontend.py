"""Tests for the Python frontend (real libcst, inline snippets)."""

from __future__ import annotations

import textwrap
from pathlib import Path


from trtlint.base.facts import FileFacts, from_json, to_json
from trtlint.frontends import ExtractContext, SourceFile
from trtlint.frontends import python as pyfe


def run(tmp_path: Path, code: str, name: str = "mod.py", ctx: ExtractContext | None = None) -> FileFacts:
    p = tmp_path / name
    p.write_text(textwrap.dedent(code), encoding="utf-8")
    src = SourceFile(path=p, rel=f"pkg/{name}", kind="python", digest="d0")
    facts = pyfe.extract(src, ctx or ExtractContext(root=tmp_path))
    assert facts.path == f"pkg/{name}"
    # every fact must survive the JSON round trip used by the cache
    assert from_json(to_json(facts)) == facts
    return facts


def attrs(fact) -> dict:
    return {a.name: a for a in fact.attrs}


def by_op(facts: FileFacts) -> dict:
    return {e.op_type: e for e in facts.emissions}


# --------------------------------------------------------------------------------------------------------
# module contract
# --------------------------------------------------------------------------------------------------------


def test_module_contract():
    assert isinstance(pyfe.VERSION, str) and pyfe.VERSION
    assert pyfe.KIND_NAMES == ("python",)


def test_libcst_is_imported_only_for_a_file_that_may_hold_its_facts(tmp_path):
    """A process that extracts only files the ast skip test lets pass never imports libcst (~0.3 s per
    worker); the first file that needs it imports it and gets its facts."""
    import subprocess
    import sys

    plain = tmp_path / "plain.py"
    plain.write_text("import numpy as np\n\nclass A:\n    def plugin_version(self):\n        return np.add(1, 2)\n")
    emits = tmp_path / "emits.py"
    emits.write_text("def f(g, x):\n    return g.op('trt::FooPlugin', x, plugin_version_s='1')\n")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from trtlint.frontends import ExtractContext, SourceFile\n"
        "from trtlint.frontends import python as fe\n"
        "ctx = ExtractContext(root=Path(sys.argv[1]))\n"
        "def ex(name):\n"
        "    return fe.extract(SourceFile(path=Path(sys.argv[1]) / name, rel=name, kind='python', digest='d'), ctx)\n"
        "ff = ex('plain.py')\n"
        "print(ff.problems == (), 'libcst' in sys.modules)\n"
        "ff = ex('emits.py')\n"
        "print([e.op_type for e in ff.emissions], 'libcst' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["True False", "['FooPlugin'] True"], out.stdout


def test_prefilter_skips_parsing(tmp_path, monkeypatch):
    def boom(*a, **k):  # pragma: no cover - must not be called
        raise AssertionError("parsed a file the pre-filter should have rejected")

    import libcst

    monkeypatch.setattr(libcst, "parse_module", boom)
    f = run(tmp_path, "import numpy as np\n\ndef f(x):\n    return np.add(x, 1)\n")
    assert f.problems == () and f.emissions == () and f.lookups == () and f.api_uses == ()
    # even a syntax error is not reported when nothing interesting is in the file
    f = run(tmp_path, "def f(:\n", name="broken.py")
    assert f.problems == ()


def test_prefilter_keywords():
    assert pyfe.might_have_facts("x = g.op('a::B', y)")
    assert pyfe.might_have_facts("helper.make_node('A', [], [])")
    assert pyfe.might_have_facts("y = operation('attention', xs)")
    assert not pyfe.might_have_facts("y = my_operation_count + 1")
    assert pyfe.might_have_facts("y = dispatch('x')", ("dispatch",))


def test_syntax_error_is_a_problem(tmp_path):
    f = run(tmp_path, "import tensorrt as trt\n\ndef f(:\n    trt.PluginField('a')\n")
    assert len(f.problems) == 1
    prob = f.problems[0]
    assert prob.message.startswith("syntax error")
    assert prob.span.line == 3 and prob.span.path == "pkg/mod.py"
    assert f.api_uses == ()


def test_non_utf8_is_a_problem(tmp_path):
    p = tmp_path / "latin.py"
    p.write_bytes(b"# caf\xe9\nimport tensorrt as trt\ntrt.PluginField('a')\n")
    f = pyfe.extract(SourceFile(p, "latin.py", "python", "d"), ExtractContext(root=tmp_path))
    assert len(f.problems) == 1 and "UTF-8" in f.problems[0].message


def test_binary_and_missing_file(tmp_path):
    p = tmp_path / "bin.py"
    p.write_bytes(b"\x00\x01\x02PluginField")
    f = pyfe.extract(SourceFile(p, "bin.py", "python", "d"), ExtractContext(root=tmp_path))
    assert len(f.problems) == 1 and "binary" in f.problems[0].message
    f = pyfe.extract(SourceFile(tmp_path / "nope.py", "nope.py", "python", "d"), ExtractContext(root=tmp_path))
    assert len(f.problems) == 1


# --------------------------------------------------------------------------------------------------------
# onnxscript
# --------------------------------------------------------------------------------------------------------


def test_onnxscript_custom_opset(tmp_path):
    f = run(
        tmp_path,
        """
        from typing import Sequence
        import onnxscript
        from onnxscript import opset21 as op
        from onnxscript import script

        _trt_edgellm = onnxscript.values.Opset("trt_edgellm", 1)

        @script()
        def translate(x: onnxscript.FLOAT16, num_heads: int, scale: float, mode: str,
                      scales: Sequence[float], dims: Sequence[int]):
            y = op.Cast(x, to=1)
            a, b = _trt_edgellm.AttentionPlugin(
                y, x, num_heads=num_heads, scale=scale, mode=mode, scales=scales, dims=dims,
                literal=3, _outputs=2)
            return a, b
        """,
    )
    assert len(f.emissions) == 1  # op.Cast is a standard op: no fact
    e = f.emissions[0]
    assert (e.op_type, e.domain, e.form, e.function) == ("AttentionPlugin", "trt_edgellm", "onnxscript", "translate")
    at = attrs(e)
    assert "_outputs" not in at
    assert {k: a.type for k, a in at.items()} == {
        "num_heads": "INT",
        "scale": "FLOAT",
        "mode": "STRING",
        "scales": "FLOATS",
        "dims": "INTS",
        "literal": "INT",
    }
    assert at["literal"].value == "3"
    assert e.span.line == 13 and e.span.col == 12
    assert at["num_heads"].span.line == 14
    assert not e.open_attrs


def test_onnxscript_import_forms(tmp_path):
    f = run(
        tmp_path,
        """
        from onnxscript import values
        from onnxscript.values import Opset as OS

        A = values.Opset(domain="dom_a", version=1)
        B = OS("dom_b", 2)

        def fn(x):
            C = OS("dom_c", 1)
            return A.OpA(x), B.OpB(x, alpha=0.5), C.OpC(x, names=["a", "b"])
        """,
    )
    ops = by_op(f)
    assert ops["OpA"].domain == "dom_a"
    assert ops["OpB"].domain == "dom_b" and attrs(ops["OpB"])["alpha"].type == "FLOAT"
    assert ops["OpC"].domain == "dom_c" and attrs(ops["OpC"])["names"].type == "STRINGS"


def test_opset_from_unrelated_module_is_ignored(tmp_path):
    f = run(
        tmp_path,
        """
        from mylib import Opset
        X = Opset("dom", 1)
        y = X.Op(1)
        """,
    )
    assert f.emissions == ()


# --------------------------------------------------------------------------------------------------------
# torch.onnx g.op
# --------------------------------------------------------------------------------------------------------


def test_gop_suffixes(tmp_path):
    f = run(
        tmp_path,
        """
        _OP = "trt::MyPlugin"

        def symbolic(g, x, heads):
            return g.op("trt_edgellm::AttentionPlugin", x, heads_i=heads, eps_f=1e-5, mode_s="a",
                        dims_is=[1, 2], scales_fs=[0.5], w_t=x, shape_i=[1, 2], plugin_version_s="1",
                        plugin_namespace_s="", outputs=2)

        def other(ctx, x):
            return ctx.op(_OP, x, k_i=1)

        def builtin(g, x):
            return g.op("Relu", x)

        def legacy(g, x):
            return g.op("CustomHardmax", x, axis_i=1)
        """,
    )
    ops = by_op(f)
    assert set(ops) == {"AttentionPlugin", "MyPlugin", "CustomHardmax"}  # Relu is a standard op
    e = ops["AttentionPlugin"]
    assert e.domain == "trt_edgellm" and e.form == "g.op" and e.function == "symbolic"
    types = {a.name: a.type for a in e.attrs}
    assert types == {
        "heads": "INT",
        "eps": "FLOAT",
        "mode": "STRING",
        "dims": "INTS",
        "scales": "FLOATS",
        "w": "TENSOR",
        "shape": "INTS",
        "plugin_version": "STRING",
        "plugin_namespace": "STRING",
    }
    assert e.plugin_version == "1" and e.plugin_namespace == ""
    assert ops["MyPlugin"].domain == "trt" and attrs(ops["MyPlugin"])["k"].type == "INT"
    assert ops["CustomHardmax"].domain == ""


def test_gop_non_literal_name_is_skipped(tmp_path):
    f = run(tmp_path, "def s(g, name, x):\n    return g.op(name, x)\n")
    assert f.emissions == ()


# --------------------------------------------------------------------------------------------------------
# onnx.helper.make_node
# --------------------------------------------------------------------------------------------------------


def test_make_node_forms(tmp_path):
    f = run(
        tmp_path,
        """
        import onnx
        import onnx.helper as oh
        from onnx import helper
        from onnx.helper import make_node as mk

        PLUGIN = "AttentionPlugin"
        DOMAIN = "trt"

        def build(n):
            a = onnx.helper.make_node(PLUGIN, ["x"], ["y"], name="n0", domain=DOMAIN, num_heads=4,
                                      scale=0.5, plugin_version="2", plugin_namespace="ns")
            b = oh.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 3])
            c = helper.make_node("MyOp", ["x"], ["y"], "n1", "doc", "custom", alpha=1.0)
            d = mk(op_type="Other", inputs=["x"], outputs=["y"], domain="d2", **n)
            e = helper.make_node("DefaultDomainPlugin", ["x"], ["y"], mode="m")
            return a, b, c, d, e
        """,
    )
    ops = by_op(f)
    assert set(ops) == {"AttentionPlugin", "MyOp", "Other", "DefaultDomainPlugin"}  # Conv skipped
    a = ops["AttentionPlugin"]
    assert a.domain == "trt" and a.form == "make_node"
    assert set(attrs(a)) == {"num_heads", "scale", "plugin_version", "plugin_namespace"}
    assert a.plugin_version == "2" and a.plugin_namespace == "ns"
    assert attrs(a)["num_heads"].type == "INT"
    assert ops["MyOp"].domain == "custom" and set(attrs(ops["MyOp"])) == {"alpha"}
    assert ops["Other"].domain == "d2" and ops["Other"].open_attrs
    assert ops["DefaultDomainPlugin"].domain == ""


def test_make_node_unrelated_module(tmp_path):
    f = run(tmp_path, "from mylib import make_node\nmake_node('X', [], [], domain='d')\n")
    assert f.emissions == ()


# --------------------------------------------------------------------------------------------------------
# attribute dicts
# --------------------------------------------------------------------------------------------------------


def test_dict_attrs_in_branches(tmp_path):
    f = run(
        tmp_path,
        """
        import onnx

        def build(x, c, d, extra):
            attrs = {"a": 1, "s": "txt"}
            if c:
                attrs["b"] = 2.0
            else:
                attrs.setdefault("e", [1, 2])
            attrs.update(c=2)
            attrs.update({"f": "x"})
            return onnx.helper.make_node("P", ["x"], ["y"], domain="dom", **attrs)

        def open_case(x, extra):
            attrs = dict(a=1)
            return onnx.helper.make_node("Q", ["x"], ["y"], domain="dom", **attrs, **extra)

        def call_case(x):
            return onnx.helper.make_node("R", ["x"], ["y"], domain="dom", **make_attrs())

        def update_unknown(x, extra):
            attrs = {"a": 1}
            attrs.update(extra)
            return onnx.helper.make_node("S", ["x"], ["y"], domain="dom", **attrs)
        """,
    )
    ops = by_op(f)
    p = attrs(ops["P"])
    assert set(p) == {"a", "s", "b", "e", "c", "f"}
    assert not p["a"].conditional and not p["c"].conditional and not p["f"].conditional
    assert p["b"].conditional and p["e"].conditional
    assert p["a"].type == "INT" and p["s"].type == "STRING" and p["b"].type == "FLOAT" and p["e"].type == "INTS"
    assert p["b"].span.line == 7  # the subscript assignment
    assert not ops["P"].open_attrs
    assert set(attrs(ops["Q"])) == {"a"} and ops["Q"].open_attrs
    assert ops["R"].open_attrs and ops["R"].attrs == ()
    assert set(attrs(ops["S"])) == {"a"} and ops["S"].open_attrs


def test_dict_built_in_branches_then_used_in_branch(tmp_path):
    f = run(
        tmp_path,
        """
        _trt = __import__("x")
        import onnxscript
        O = onnxscript.values.Opset("d", 1)

        def fn(x, c):
            kw = {}
            if c:
                kw["k"] = 1
                return O.Op1(x, **kw)
            return O.Op2(x, **kw)
        """,
    )
    ops = by_op(f)
    assert not attrs(ops["Op1"])["k"].conditional  # added in the same branch as the call
    assert attrs(ops["Op2"])["k"].conditional


# --------------------------------------------------------------------------------------------------------
# direct route
# --------------------------------------------------------------------------------------------------------


def test_direct_route_table_and_calls(tmp_path):
    backend = run(
        tmp_path,
        """
        import tensorrt as trt

        _OPERATION_CREATORS = {
            "attention": "AttentionPlugin",
            "moe": "MoePlugin",
        }
        _UNUSED = {"a": "b"}

        class Net:
            @staticmethod
            def _creator(name):
                creator_name = _OPERATION_CREATORS.get(name, name)
                registry = trt.get_plugin_registry()
                return registry.get_creator(creator_name, "1", "")

            def operation(self, name, attributes, inputs):
                fc = trt.PluginFieldCollection([])
                return self._creator(name).create_plugin(name, fc, trt.TensorRTPhase.BUILD)

            def linear(self, x, v2):
                name = "gemm_v2" if v2 else "gemm"
                return self.operation(name, {"n": 4, "k": x.k}, [x])
        """,
        name="backend.py",
    )
    assert len(backend.route_tables) == 1
    t = backend.route_tables[0]
    assert t.name == "_OPERATION_CREATORS" and t.fallback_identity
    assert (t.version, t.namespace) == ("1", "")
    assert [(k, v) for k, v, _ in t.entries] == [("attention", "AttentionPlugin"), ("moe", "MoePlugin")]
    assert t.entries[0][2].line == 5 and t.span.line == 4
    assert len(backend.lookups) == 1
    lk = backend.lookups[0]
    assert lk.name is None and lk.version == "1" and lk.namespace == ""
    assert lk.name_span is not None and lk.name_span.line == 15
    calls = {c.operation: c for c in backend.route_calls}
    assert set(calls) == {"gemm", "gemm_v2"}  # the route call through a method, name chosen by a conditional
    assert set(attrs(calls["gemm"])) == {"n", "k"} and calls["gemm"].function == "Net.linear"
    apis = sorted(u.api for u in backend.api_uses)
    assert apis == ["PluginFieldCollection", "create_plugin", "get_plugin_registry"]

    functional = run(
        tmp_path,
        """
        from .ops import operation

        def attention(q, heads: int, scale, extra, enable_norm):
            attributes = {"num_heads": heads, "flag": int(enable_norm)}
            if scale is not None:
                attributes["scale"] = scale
            out, kv = operation("attention", [q], output_count=2, **attributes)
            return operation("moe", [q], top_k=2, **extra)
        """,
        name="functional.py",
    )
    calls = {c.operation: c for c in functional.route_calls}
    att = calls["attention"]
    a = attrs(att)
    assert set(a) == {"num_heads", "flag", "scale"} and a["scale"].conditional and not a["num_heads"].conditional
    assert a["num_heads"].type == "INT" and a["flag"].type == "INT"
    assert not att.open_attrs and att.function == "attention"
    assert calls["moe"].open_attrs and set(attrs(calls["moe"])) == {"top_k"}


def test_route_table_subscript_lookup_and_custom_names(tmp_path):
    ctx = ExtractContext(root=tmp_path, route_call_names=("emit",), route_reserved_kwargs=("n_out",))
    f = run(
        tmp_path,
        """
        TABLE = {"x": "XPlugin"}

        def creator(reg, op):
            return reg.get_creator(TABLE[op], version="2", plugin_namespace="ns")

        def use(b):
            b.emit("x", [], n_out=3, alpha=1)
            operation("y", [], beta=2)
        """,
        ctx=ctx,
    )
    (t,) = f.route_tables
    assert not t.fallback_identity and (t.version, t.namespace) == ("2", "ns")
    (c,) = f.route_calls
    assert c.operation == "x" and set(attrs(c)) == {"alpha"}


def test_local_dict_shadowing_table(tmp_path):
    f = run(
        tmp_path,
        """
        TABLE = {"x": "XPlugin"}

        def creator(reg, op, TABLE):
            return reg.get_creator(TABLE.get(op, op), "1")
        """,
    )
    assert f.route_tables == ()


# --------------------------------------------------------------------------------------------------------
# creator lookups and plugin API uses
# --------------------------------------------------------------------------------------------------------


def test_creator_lookups(tmp_path):
    f = run(
        tmp_path,
        """
        import tensorrt as trt

        _PLUGIN_NAME = "Nvfp4Plugin"
        _PLUGIN_VERSION = "1"

        def a():
            return trt.get_plugin_registry().get_creator("AttentionPlugin", "1", "")

        def b(registry):
            return registry.get_creator(_PLUGIN_NAME, _PLUGIN_VERSION)

        def c(registry, name, version):
            return registry.get_creator(name, version, plugin_namespace="ns")

        def d(registry):
            return registry.get_plugin_creator(type="Old", version="2", plugin_namespace="")

        def e(registry):
            return registry.get_creator(name="K", version="1", namespace="x")
        """,
    )
    lk = {(x.span.line): x for x in f.lookups}
    assert [(x.name, x.version, x.namespace) for x in f.lookups] == [
        ("AttentionPlugin", "1", ""),
        ("Nvfp4Plugin", "1", ""),  # namespace omitted -> TensorRT default ""
        (None, None, "ns"),
        ("Old", "2", ""),
        ("K", "1", "x"),
    ]
    first = f.lookups[0]
    assert first.name_span.line == 8 and first.name_span.col == 50 and first.name_span.end_col == 67
    assert [u.api for u in f.api_uses] == ["get_plugin_registry"]
    assert lk  # spans are distinct lines


def test_plugin_api_uses_and_aliases(tmp_path):
    f = run(
        tmp_path,
        """
        import numpy as np
        import tensorrt
        from tensorrt import PluginField as PF, PluginFieldCollection
        from other import PluginField

        def build(network, creator, x):
            f1 = tensorrt.PluginField("a", np.array([1]), tensorrt.PluginFieldType.INT32)
            f2 = PF("b", np.array([1.0]), tensorrt.PluginFieldType.FLOAT32)
            f3 = PluginField("c")  # unrelated module
            fc = PluginFieldCollection([f1, f2])
            plugin = creator.create_plugin("p", fc, tensorrt.TensorRTPhase.BUILD)
            network.add_plugin_v3([x], [], plugin)
            network.add_plugin_v2([x], plugin)
            network.add_plugin(plugin)

        class MyCreator:
            def create_plugin(self, name, fc, phase):  # a definition, not a use
                return None
        """,
    )
    assert [u.api for u in f.api_uses] == [
        "PluginField",
        "PluginField",
        "PluginFieldCollection",
        "create_plugin",
        "add_plugin_v3",
        "add_plugin_v2",
        "add_plugin",
    ]
    assert f.api_uses[0].span.line == 8


def test_local_shadowing_of_trt_alias(tmp_path):
    f = run(
        tmp_path,
        """
        import tensorrt as trt

        def f(trt):
            return trt.PluginField("a")

        def g():
            import tensorrt as rt
            return rt.PluginField("b")
        """,
    )
    assert [u.span.line for u in f.api_uses] == [9]


def test_try_import_fallback_keeps_alias(tmp_path):
    f = run(
        tmp_path,
        """
        try:
            import tensorrt as trt
        except ImportError:
            trt = None

        def f():
            return trt.PluginField("a")
        """,
    )
    assert [u.api for u in f.api_uses] == ["PluginField"]


def test_spans_are_one_based_exclusive(tmp_path):
    f = run(tmp_path, "import tensorrt as trt\nx = trt.PluginField('a')\n")
    (u,) = f.api_uses
    assert (u.span.line, u.span.col, u.span.end_line, u.span.end_col) == (2, 5, 2, 25)


def test_never_raises_on_odd_code(tmp_path):
    f = run(
        tmp_path,
        """
        import tensorrt as trt
        match = 1
        async def f(g, *a, **k):
            async with g as h:
                await h.op("d::O", *a, **k)
            x = lambda q: q.get_creator(*a)
            [trt.PluginField(i) for i in range(3)]
            d = {**k}
            d[k] = 1
            del d["z"]
            return g.op(b"d::O")
        match x:
            case 1:
                pass
        """,
    )
    assert f.problems == ()
    (e,) = f.emissions
    assert e.op_type == "O" and e.open_attrs
    assert f.lookups[0].name is None and f.lookups[0].namespace is None


def test_python_defined_creators_and_qdp_registrations(tmp_path):
    from trtlint.frontends import ExtractContext, SourceFile
    from trtlint.frontends import python as fe

    code = (
        "import numpy as np\n"
        "import tensorrt as trt\n"
        "import tensorrt.plugin as trtp\n"
        "class MyCreator(trt.IPluginCreatorV3One):\n"
        "    def __init__(self):\n"
        '        self.name = "MyPlugin"\n'
        '        self.plugin_version = "2"\n'
        "        self.field_names = trt.PluginFieldCollection(\n"
        '            [trt.PluginField("backend", np.array([]), trt.PluginFieldType.CHAR)]\n'
        "        )\n"
        "class NotACreator(object):\n"
        "    def __init__(self):\n"
        '        self.name = "Nope"\n'
        '        self.plugin_version = "1"\n'
        '@trtp.register("sample::circ_pad")\n'
        "def circ_pad(x):\n"
        "    return x.like()\n"
    )
    p = tmp_path / "c.py"
    p.write_text(code)
    ff = fe.extract(SourceFile(p, "c.py", "python", "d"), ExtractContext(root=tmp_path))
    got = [(c.how, c.cls, c.name, c.version, c.namespace, [f.name + ":" + str(f.type) for f in c.fields], c.span.line) for c in ff.py_creators]
    assert got == [
        ("class", "MyCreator", "MyPlugin", "2", "", ["backend:kCHAR"], 6),
        ("qdp", "circ_pad", "circ_pad", "1", "sample", [], 15),
    ]
