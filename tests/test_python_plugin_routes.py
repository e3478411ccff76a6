"""Python plugin creation joined into one route, and onnx-graphsurgeon emissions (issue 32): the facts the
Python frontend makes from the forms deployment code writes, read from the index of a small project."""

from __future__ import annotations

from .helpers import check_project, write_project

_MODEL = '''import numpy as np
import tensorrt as trt


def build(network, x):
    # the creator is looked up at module level, further down
    a = trt.PluginField("alpha", np.array([1.0], np.float32), trt.PluginFieldType.FLOAT32)
    more = [trt.PluginField("beta", np.array([2], np.int32), trt.PluginFieldType.INT32)]
    pfc = trt.PluginFieldCollection([a] + more)
    return network.add_plugin_v2([x], FOO.create_plugin("foo", pfc))


def build_appended(network, x):
    pfc = trt.PluginFieldCollection()
    pfc.append(trt.PluginField("gamma", np.array([1.0], np.float32), trt.PluginFieldType.FLOAT32))
    creator = trt.get_plugin_registry().get_creator("BarPlugin", "2", "")
    return creator.create_plugin("bar", pfc)


def build_rebound(network, x):
    # the list rebound to its own collection
    fc = []
    fc.append(trt.PluginField("eta", np.array([1], dtype=np.int32), trt.PluginFieldType.INT32))
    fc = trt.PluginFieldCollection(fc)
    return trt.get_plugin_registry().get_plugin_creator("Rebound", "1").create_plugin("r", fc)


def build_two(network, x):
    # two creators in one function: each create_plugin gets the fields of its own collection
    p = trt.get_plugin_registry().get_plugin_creator("P", "1", "")
    q = trt.get_plugin_registry().get_plugin_creator("Q", "1", "")
    fp = trt.PluginField("p_only", np.array([1], np.int32), trt.PluginFieldType.INT32)
    fq = trt.PluginField("q_only", np.array([1], np.int32), trt.PluginFieldType.INT32)
    p.create_plugin("p", trt.PluginFieldCollection([fp]))
    q.create_plugin("q", trt.PluginFieldCollection([fq]))


def build_scan(network, x):
    for c in CREATORS:
        if c.name == "ScanPlugin" and c.plugin_version == "3":
            fields = [trt.PluginField("delta", np.array([1], np.int32), trt.PluginFieldType.INT32)]
            return c.create_plugin(c.name, trt.PluginFieldCollection(fields))


def build_helper(network, x, fields):
    # the collection is a parameter: not followed, and this function makes no PluginField of its own
    return trt.get_plugin_registry().get_plugin_creator("Opaque", "1", "").create_plugin("o", trt.PluginFieldCollection(fields))


FOO = trt.get_plugin_registry().get_plugin_creator("FooPlugin", "1", "")
CREATORS = trt.get_plugin_registry().plugin_creator_list
'''

_SURGERY = '''from collections import OrderedDict

import onnx_graphsurgeon as gs


@gs.Graph.register()
def nms(self, x, y):
    op = "EfficientNMS_TRT"
    attrs = OrderedDict(plugin_version="1", score_threshold=0.25, iou_threshold=0.45)
    return self.layer(op=op, attrs=attrs, inputs=[x], outputs=[y])


def insert(graph, x, y, z, extra):
    graph.nodes.append(gs.Node("LayerNormPlugin", "ln_0", OrderedDict([("epsilon", 1e-5)]), inputs=[x], outputs=[y]))
    graph.nodes.append(gs.Node(op="Add", inputs=[x, y], outputs=[z]))
    graph.nodes.append(gs.Node(op="Gather", attrs={"axis": 0}, inputs=[x, y], outputs=[z]))
    graph.nodes.append(gs.Node(op="Custom", domain="my.plugins", attrs=extra, inputs=[x], outputs=[y]))
'''

_NO_GS = '''class Net:
    def layer(self, op=None, attrs=None):
        return op


def use(net):
    # a .layer(op=...) call in a module that does not import onnx-graphsurgeon is not an emission
    return net.layer(op="NotAPlugin", attrs={"k": 1})
'''


def _index(tmp_path, files):
    write_project(tmp_path, files)
    return check_project(tmp_path).index


def test_plugin_field_lists_join_their_lookup(tmp_path):
    idx = _index(tmp_path, {"py/model.py": _MODEL})
    by_name = {lk.name: lk for lk in idx.lookups}
    assert [a.name for a in by_name["FooPlugin"].attrs] == ["alpha", "beta"]
    assert by_name["FooPlugin"].open_attrs is False
    assert by_name["FooPlugin"].attrs[0].span.line == 7  # the field's name, where a rename is made
    assert [a.name for a in by_name["BarPlugin"].attrs] == ["gamma"]
    assert [a.name for a in by_name["Rebound"].attrs] == ["eta"] and by_name["Rebound"].open_attrs is False
    assert [a.name for a in by_name["P"].attrs] == ["p_only"]
    assert [a.name for a in by_name["Q"].attrs] == ["q_only"]
    scan = by_name["ScanPlugin"]
    assert (scan.form, scan.version, scan.namespace, scan.span.line) == ("plugin_creator_list", "3", None, 40)
    assert [a.name for a in scan.attrs] == ["delta"]
    assert by_name["Opaque"].attrs == ()


def test_graphsurgeon_emissions(tmp_path):
    idx = _index(tmp_path, {"py/surgeon.py": _SURGERY, "py/other.py": _NO_GS})
    got = {(e.op_type, e.domain, e.form): e for e in idx.emissions}
    # standard ONNX ops are not emissions; the op through a local name; OrderedDict keywords and pairs
    assert sorted(got) == [
        ("Custom", "my.plugins", "gs.Node"),
        ("EfficientNMS_TRT", "", "graph.layer"),
        ("LayerNormPlugin", "", "gs.Node"),
    ]
    nms = got[("EfficientNMS_TRT", "", "graph.layer")]
    assert [a.name for a in nms.attrs] == ["plugin_version", "score_threshold", "iou_threshold"]
    assert nms.plugin_version == "1" and nms.open_attrs is False
    ln = got[("LayerNormPlugin", "", "gs.Node")]
    assert [a.name for a in ln.attrs] == ["epsilon"] and ln.op_span is not None and ln.op_span.line == 14
    assert got[("Custom", "my.plugins", "gs.Node")].open_attrs is True  # attrs from a parameter


def test_graphsurgeon_node_through_a_submodule_import_or_a_lazy_import(tmp_path):
    """``Node`` imported from onnx-graphsurgeon's own submodule, and ``gs`` bound by a lazy loader or importlib with
    the module's name (a version constraint after it dropped), are onnx-graphsurgeon's: their nodes are emissions.
    A lazy import of another module is not."""
    files = {
        "py/sub.py": 'from onnx_graphsurgeon.ir.node import Node\n\n\ndef f():\n    return Node(op="SubPlugin")\n',
        "py/lazy.py": ('from polygraphy import mod\ngs = mod.lazy_import("onnx_graphsurgeon>=0.5")\n\n\n'
                       'def f():\n    return gs.Node(op = "LazyPlugin", attrs={"k": 1})\n'),
        "py/importlib_.py": ('import importlib\ngs = importlib.import_module("onnx_graphsurgeon")\n'
                             'gs.Node(op="ImportlibPlugin")\n'),
        "py/other.py": ('from polygraphy import mod\ngs = mod.lazy_import("somewhere_else")\n'
                        'gs.Node(op="NotGs")\n'),
    }
    idx = _index(tmp_path, files)
    got = sorted((e.op_type, e.span.path, e.span.line, tuple(a.name for a in e.attrs)) for e in idx.emissions)
    assert got == [("ImportlibPlugin", "py/importlib_.py", 3, ()), ("LazyPlugin", "py/lazy.py", 6, ("k",)),
                   ("SubPlugin", "py/sub.py", 5, ())]


_SURGERY_HELPER = '''import onnx_graphsurgeon as gs


@gs.Graph.register()
def trt_plugin(self, op, inputs, outputs, attrs):
    return self.layer(op=op, inputs=inputs, outputs=outputs, attrs=attrs)


def add_node(graph, op_type, attrs, x, y):
    graph.nodes.append(gs.Node(op=op_type, attrs=attrs, inputs=[x], outputs=[y]))


def insert(graph, x, y, name):
    graph.trt_plugin("EfficientNMS_TRT", [x], [y], {"score_threshold": 0.25, "plugin_version": "1"})
    graph.trt_plugin(op="BarPlugin", inputs=[x], outputs=[y], attrs={"k": 1})
    add_node(graph, "LayerNormPlugin", {"epsilon": 1e-5}, x, y)
    graph.trt_plugin(name, [x], [y], {})  # an op not known here: no node
'''


def test_graphsurgeon_helpers_taking_the_op_as_a_parameter(tmp_path):
    """issue 32: op= and attrs= followed through a helper's parameters to each call of it in the module (a registered
    graph method called on the graph, keywords or positions, or a plain function); the helper itself is no node."""
    idx = _index(tmp_path, {"py/surgeon.py": _SURGERY_HELPER})
    got = sorted((e.op_type, e.form, e.span.line, tuple(a.name for a in e.attrs), e.open_attrs) for e in idx.emissions)
    assert got == [
        ("BarPlugin", "graph.layer", 15, ("k",), False),
        ("EfficientNMS_TRT", "graph.layer", 14, ("score_threshold", "plugin_version"), False),
        ("LayerNormPlugin", "gs.Node", 16, ("epsilon",), False),
    ]


def test_dict_helper_of_another_module_completed_at_its_callers(tmp_path):
    """A package's helper looking the creator up by a dict parameter's entries, called by two samples with their own
    dicts (one through a name bound to the dict, one by keyword with the version left to the helper's default), and a
    same-named helper in another package nearer one of them: each call becomes one lookup at the call, from the
    nearest helper; a dict handed to an imported function that is no such helper leaves no lookup, and an entry of
    something not a followed dict (a parameter's) is no dict."""
    from trtlint.checks.examples.contract import py_dict_helper

    files = py_dict_helper()
    helper = files["mypkg/plugins.py"]
    files["samples/two/mypkg/plugins.py"] = helper.replace('info.get("version", "1")', 'info.get("version", "7")')
    files["samples/two/mypkg/__init__.py"] = "from .plugins import *\n"
    files["samples/two/main.py"] = (
        "import numpy as np\nfrom mypkg import get_plugin\nfrom mypkg import other\n\n\ndef build(network, x):\n"
        '    info = {"name": "Two", "namespace": "ns", "argument_dict": {"beta": np.array([1.0]), "gamma": 1}}\n'
        '    other({"name": "NotAPlugin"})\n'
        '    other(x["k"], {"name": "NotAPlugin"}["k"])\n'
        "    return network.add_plugin_v3([x], [], get_plugin(info=info))\n"
    )
    write_project(tmp_path, files)
    got = sorted((lk.span.path, lk.span.line, lk.name, lk.version, lk.namespace, tuple(a.name for a in lk.attrs), lk.open_attrs)
                 for lk in check_project(tmp_path).index.lookups if lk.name is not None)
    assert got == [
        ("samples/foo/main.py", 7, "FooPlugin", "1", "", ("alpha",), False),
        ("samples/two/main.py", 10, "Two", "7", "ns", ("beta", "gamma"), False),
    ]
    # the candidates no helper completes are dropped, the helpers' own lookups keep no name
    assert not [lk for lk in check_project(tmp_path).index.lookups if lk.dict_arg is not None and lk.name is None]


def test_dict_helper_of_another_program(tmp_path):
    """The helper package lives in another program of the tree (each directory with its own Makefile is one): the
    sample's program, checked over its own index, still completes its call from it and judges the fields."""
    from trtlint.checks.examples.contract import creator_cpp, py_dict_helper

    files = {f"lib/{k}": v for k, v in py_dict_helper(field="alfa").items() if k.startswith("mypkg/")}
    files["lib/Makefile"] = "all:\n\tg++ -shared util.cpp -o libutil.so\n"
    files["lib/util.cpp"] = "int util() { return 0; }\n"
    files["samples/foo/main.py"] = py_dict_helper(field="alfa")["samples/foo/main.py"]
    files["samples/foo/fooPlugin.cpp"] = creator_cpp("FooPlugin")
    files["samples/foo/Makefile"] = "all:\n\tnvcc -shared fooPlugin.cpp -o foo.so\n"
    write_project(tmp_path, files)
    res = check_project(tmp_path, select=["TRT103"])
    assert set(res.build.scopes) >= {"lib", "samples/foo"}
    assert [(d.span.path, d.span.line, d.message.split(" is ")[0]) for d in res.diagnostics] == [
        ("samples/foo/main.py", 6, "attribute 'alfa' of get_creator('FooPlugin', '1', '') through get_plugin(...)")]


_CONVERTERS = '''import numpy as np
import tensorrt as trt
from .types import *
from .utils import *
from otherlib import make_plugin


def layer_norm(network, x, eps, implicit):
    g = trt.PluginField("gamma", np.array([1.0], np.float32), trt.PluginFieldType.FLOAT32)
    e = trt.PluginField("eps", np.array([eps], np.float32), trt.PluginFieldType.FLOAT32)
    field_collection = trt.PluginFieldCollection([g, e])
    if implicit:
        plugin = get_trt_plugin("layer_norm", field_collection, "1", "fx2trt")
    else:
        plugin = get_trt_plugin("LayerNormDynamic", field_collection, "1", "fx2trt")
    return network.add_plugin_v2([x], plugin)


def gelu(network, x):
    plugin_name = "CustomGeluPluginDynamic"
    type_id = trt.PluginField("type_id", np.array(0, dtype=np.int32), trt.PluginFieldType.INT32)
    field_collection = TRTPluginFieldCollection([type_id])
    plugin = get_trt_plugin(plugin_name, field_collection, "1")
    return network.add_plugin_v2([x], plugin)


def local(network, x):
    f = trt.PluginField("k", np.array([1], np.int32), trt.PluginFieldType.INT32)
    return network.add_plugin_v2([x], _local_helper(trt.PluginFieldCollection([f]), "Local"))


def elsewhere(network, x):
    f = trt.PluginField("z", np.array([1], np.int32), trt.PluginFieldType.INT32)
    return network.add_plugin_v2([x], make_plugin("Elsewhere", [f]))


def concat(network, xs):
    # a list of tensors handed to a method: no PluginField collection, nothing to name
    inputs = []
    for x in xs:
        inputs.append(x)
    return network.add_concatenation(inputs)


def _local_helper(fc, name, version="3"):
    creator = trt.get_plugin_registry().get_plugin_creator(name, version)
    return creator.create_plugin(name, fc)
'''

_UTILS = '''import tensorrt as trt


def get_trt_plugin(plugin_name, field_collection, version, plugin_namespace=""):
    plugin_registry = trt.get_plugin_registry()
    plugin_creator = plugin_registry.get_plugin_creator(plugin_name, version, plugin_namespace)
    assert plugin_creator, f"Unable to find plugin creator with name {plugin_name}"
    return plugin_creator.create_plugin(name=plugin_name, field_collection=field_collection)
'''


def test_parameter_helper_of_another_module_completed_at_its_callers(tmp_path):
    """A helper looking the creator up by its parameters and handing create_plugin the collection parameter, defined
    in another module brought by a star import (two star imports: the other module holds an alias of
    PluginFieldCollection) or later in the same module: each call handing it a collection becomes one lookup at the
    call per name it may pass (a name bound to a literal too), with the version and namespace it passes (else the
    parameter's default) and the collection's fields; a collection made by the alias is followed. A call of a
    function the project does not define is named in the summary, not dropped silently; a list of tensors is no
    collection."""
    write_project(tmp_path, {"fx/__init__.py": "", "fx/types.py": "import tensorrt as trt\nTRTPluginFieldCollection = trt.PluginFieldCollection\n",
                             "fx/utils.py": _UTILS, "fx/converters.py": _CONVERTERS})
    res = check_project(tmp_path)
    got = sorted((lk.span.path, lk.span.line, lk.name, lk.version, lk.namespace, tuple(a.name for a in lk.attrs), lk.open_attrs)
                 for lk in res.index.lookups if lk.name is not None)
    assert got == [
        ("fx/converters.py", 13, "layer_norm", "1", "fx2trt", ("gamma", "eps"), False),
        ("fx/converters.py", 15, "LayerNormDynamic", "1", "fx2trt", ("gamma", "eps"), False),
        ("fx/converters.py", 23, "CustomGeluPluginDynamic", "1", "", ("type_id",), False),
        ("fx/converters.py", 29, "Local", "3", "", ("k",), False),
    ]
    assert not [lk for lk in res.index.lookups if lk.helper_call is not None and lk.name is None]
    assert res.index.unfollowed_helper_calls == [
        ("fx/converters.py", 34, "make_plugin",
         "no module-level function of that name looking a creator up by its parameters in otherlib")]
    from trtlint.report.context import Analysis

    analysis = res.analysis if isinstance(res.analysis, Analysis) else Analysis.from_dict(res.analysis)
    assert "1 call handing a function PluginFields not followed" in analysis.line()
    assert analysis.to_dict()["plugin_helper_calls_not_followed"] == [
        {"path": "fx/converters.py", "line": 34, "function": "make_plugin",
         "why": "no module-level function of that name looking a creator up by its parameters in otherlib"}]


def test_make_node_of_a_converters_own_graph_class_is_named_not_judged(tmp_path):
    """``graph.make_node("anchor_generator", ..., domain="custom")`` on a converter's own graph object (not
    onnx.helper) may or may not become an ONNX node: the run names it in its summary instead of judging it or
    saying nothing; a standard op through the same method, and onnx.helper's own make_node, are not named."""
    write_project(tmp_path, {
        "mapper.py": "from onnx import helper\n\n\ndef convert(graph, node):\n"
                     "    graph.make_node('Conv', inputs=node.input('X'))\n"
                     "    n = graph.make_node(\n        'anchor_generator', inputs=node.input('Input'), domain='custom')\n"
                     "    return helper.make_node('Relu', ['a'], ['b'])\n",
    })
    res = check_project(tmp_path)
    assert res.diagnostics == []
    from trtlint.report.context import Analysis

    analysis = res.analysis if isinstance(res.analysis, Analysis) else Analysis.from_dict(res.analysis)
    assert ("1 node made through a make_node that is not onnx.helper's not judged (a converter's own graph class: "
            "graph.make_node('anchor_generator') at mapper.py:6)") in analysis.line()
    assert analysis.to_dict()["emissions_not_followed"] == [
        {"path": "mapper.py", "line": 6, "call": "graph.make_node", "op": "anchor_generator"}]
    assert Analysis.from_dict(analysis.to_dict()).wrapped == analysis.wrapped
