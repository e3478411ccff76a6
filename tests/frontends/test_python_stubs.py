"""The Python stub helper (frontends/python/stubs.py): custom-op stubs, schema strings, translation tables."""

from __future__ import annotations

from trtlint.frontends.python import stubs as python_stubs

SRC = '''import torch
from torch.library import custom_op

lib = torch.library.Library("trt_edgellm", "DEF")
lib.define("bar(Tensor x, int axis=-1, *, float eps=1e-06) -> Tensor")
torch.library.define("trt_edgellm::baz", "(Tensor x, str mode='a') -> Tensor")


@custom_op("trt_edgellm::foo", mutates_args=())
def foo(x: torch.Tensor, alpha: float = 2.0, *, heads: int = 4) -> torch.Tensor:
    return x


def _foo_translation(x, heads, alpha=2.0):
    return _inner(x, heads, alpha=alpha)


def _inner(x, h, alpha):
    return x


TABLE = {torch.ops.trt_edgellm.foo.default: _foo_translation, torch.ops.trt_edgellm.bar: _inner}
_plugins = None  # onnxscript.values.Opset("trt_edgellm", 1) in real code
'''


def test_stubs_schemas_tables_and_forwards():
    facts = python_stubs.extract(SRC, "m.py")
    stubs = {s.op: s for s in facts["torch_stubs"]}
    assert set(stubs) == {"trt_edgellm::foo", "trt_edgellm::bar", "trt_edgellm::baz"}
    assert [(p.name, p.default) for p in stubs["trt_edgellm::foo"].params] == [("x", None), ("alpha", "2.0"), ("heads", "4")]
    assert stubs["trt_edgellm::foo"].params[1].span.line == 10  # the default itself
    assert [(p.name, p.default) for p in stubs["trt_edgellm::bar"].params] == [("x", None), ("axis", "-1"), ("eps", "1e-06")]
    assert [(p.name, p.default) for p in stubs["trt_edgellm::baz"].params] == [("x", None), ("mode", "'a'")]
    assert [(e.op, e.function) for e in facts["translation_entries"]] == [
        ("trt_edgellm::foo", "_foo_translation"),
        ("trt_edgellm::bar", "_inner"),
    ]
    fns = {f.name: f for f in facts["py_functions"]}
    assert fns["_foo_translation"].forwards == (("_inner", (("x", "x"), ("h", "heads"), ("alpha", "alpha"))),)


def test_files_without_stubs_cost_nothing():
    assert python_stubs.extract("import os\nprint(os.getcwd())\n", "x.py") == {}
    assert python_stubs.extract("def broken(:\n  torch.ops.x\n", "x.py") == {}
