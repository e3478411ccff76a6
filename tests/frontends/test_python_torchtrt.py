"""Torch-TensorRT converter / plugin-generation / QDP / Python plugin facts (real libcst, inline snippets)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from trtlint.config.settings import ConfigError, Settings, apply_table
from trtlint.base.facts import FileFacts, from_json, to_json
from trtlint.frontends import ExtractContext, SourceFile
from trtlint.frontends import python as pyfe
from trtlint.frontends.python import torchtrt as tt

from tests.helpers import check_project


def run(tmp_path: Path, code: str, rel: str = "pkg/sub/mod.py") -> FileFacts:
    p = tmp_path / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(code), encoding="utf-8")
    facts = pyfe.extract(SourceFile(path=p, rel=rel, kind="python", digest="d0"), ExtractContext(root=tmp_path))
    assert facts.problems == ()
    assert from_json(to_json(facts)) == facts
    return facts


def test_converter_keys_through_aliases_and_relative_imports(tmp_path):
    f = run(
        tmp_path,
        """
        import torch
        from torch.ops import aten as A
        from ._ConverterRegistry import dynamo_tensorrt_converter as reg
        from .validators import shared_validator
        aten = torch.ops.aten
        prims = torch.ops.prims

        @reg(aten.add.Tensor, capability_validator=shared_validator)
        @reg(A.mul, capability_validator=lambda node, settings=None: True)
        @reg(prims.sum.default_out)
        @reg(key=torch.ops.aten.sub.out)
        def conv(ctx, target, args, kwargs, name):
            return args[0]
        """,
    )
    got = [(c.registrar, c.key, c.key_form) for c in f.converters]
    assert got == [
        ("dynamo_tensorrt_converter", "torch.ops.aten.add.Tensor", "overload"),
        ("dynamo_tensorrt_converter", "torch.ops.aten.mul", "packet"),
        ("dynamo_tensorrt_converter", "torch.ops.prims.sum.default_out", "out"),
        ("dynamo_tensorrt_converter", "torch.ops.aten.sub.out", "out"),
    ]


def test_registrar_recognised_by_name_and_wrappers_above(tmp_path):
    f = run(
        tmp_path,
        """
        import torch
        from torch_tensorrt.dynamo.conversion import dynamo_tensorrt_converter
        from .validators import shared_validator

        @some_wrapper
        @dynamo_tensorrt_converter(torch.ops.aten.add.Tensor, capability_validator=shared_validator)
        @dynamo_tensorrt_converter(torch.ops.aten.add.Scalar)
        @inner_wrapper
        def conv(ctx, target, args, kwargs, name):
            return args[0]
        """,
    )
    first, second = f.converters
    assert [t for t, _ in first.wrappers_above] == ["some_wrapper"] and second.wrappers_above == ()
    # the relative import resolves against the file's module path (pkg/sub/mod.py -> pkg.sub)
    assert first.validator == "shared_validator" and first.validator_ref == "pkg.sub.validators.shared_validator"
    assert first.validator_params is None


def test_qdp_definitions_resolve_bindings_alias(tmp_path):
    f = run(
        tmp_path,
        """
        from typing import Tuple
        import numpy.typing as npt
        import numpy as np
        import tensorrt_bindings.plugin as trtp

        @trtp.register("ns::op", lazy_register=True)
        def desc(x: trtp.TensorDesc, pads: npt.NDArray[np.int32], *, k: "int") -> Tuple[trtp.TensorDesc]:
            return x.like()

        def enable():
            @trtp.impl("ns::op")
            def impl(x, pads, outputs, stream):
                run_kernel(x)
        """,
    )
    reg, impl = f.qdp_defs
    assert (reg.kind, reg.plugin_id, reg.lazy, reg.nested) == ("register", "ns::op", True, False)
    assert [(p.name, p.kind, p.annotation) for p in reg.params] == [
        ("x", "pos", "tensorrt.plugin.TensorDesc"),
        ("pads", "pos", "numpy.typing.NDArray[numpy.int32]"),
        ("k", "kwonly", "int"),
    ]
    assert reg.returns == "typing.Tuple[tensorrt.plugin.TensorDesc]"
    assert (impl.kind, impl.nested, impl.stream_used, impl.has_work) == ("impl", True, False, True)


def test_torch_ops_fake_kernels_and_generation(tmp_path):
    f = run(
        tmp_path,
        """
        import torch
        import torch_tensorrt
        from torch.library import custom_op, register_fake

        @custom_op("ex::a", mutates_args=())
        def a(x: torch.Tensor) -> torch.Tensor:
            return x

        @a.register_fake
        def _(x):
            return x

        torch.library.define("ex::b(Tensor x) -> Tensor")
        register_fake("ex::b")(lambda x: x)
        torch_tensorrt.dynamo.conversion.plugins.generate_plugin("ex::a")
        torch_tensorrt.dynamo.conversion.plugins.custom_op("ex::b")
        """,
    )
    got = [(u.kind, u.op) for u in f.torch_op_uses]
    assert got == [
        ("define", "ex::a"),
        ("fake", "ex::a"),
        ("define", "ex::b"),
        ("fake", "ex::b"),
        ("generate_plugin", "ex::a"),
        ("custom_op", "ex::b"),
    ]


def test_plugin_field_dtypes(tmp_path):
    f = run(
        tmp_path,
        """
        import numpy
        import tensorrt
        from tensorrt import PluginFieldType as T
        fields = [
            tensorrt.PluginField("a", numpy.array([1, -2]), T.INT32),
            tensorrt.PluginField("b", numpy.array([1, 2.5]), T.FLOAT32),
            tensorrt.PluginField("c", numpy.array([1], numpy.float16), T.FLOAT16),
            tensorrt.PluginField("d", numpy.asarray(vals).astype("int32"), T.INT32),
            tensorrt.PluginField("e", numpy.array([]), T.INT32),
            tensorrt.PluginField("f", numpy.array(vals), T.INT32),
            tensorrt.PluginField("g", numpy.float32(0.5), T.FLOAT32),
        ]
        """,
    )
    got = [(p.name, p.field_type, p.dtype, p.dtype_explicit, p.empty) for p in f.py_plugin_fields]
    assert got == [
        ("a", "INT32", "int64", False, False),
        ("b", "FLOAT32", "float64", False, False),
        ("c", "FLOAT16", "float16", True, False),
        ("d", "INT32", "int32", True, False),
        ("e", "INT32", None, False, True),
        ("f", "INT32", None, False, False),
        ("g", "FLOAT32", "float32", True, False),
    ]


def test_api_uses_need_a_tensorrt_import_and_guards_are_seen(tmp_path):
    f = run(
        tmp_path,
        """
        import tensorrt as trt
        def build(builder, network, config):
            if trt.__version__ < "10":
                return builder.build_engine(network, config)
            try:
                config.max_workspace_size = 1
            except AttributeError:
                pass
            config.set_flag(trt.BuilderFlag.STRICT_TYPES)
            return builder.build_engine(network, config)
        class Old(trt.IPluginV2DynamicExt):
            def __init__(self):
                trt.IPluginV2DynamicExt.__init__(self)
        """,
    )
    assert [(u.name, u.span.line, u.guarded) for u in f.trt_api_uses] == [
        ("build_engine", 5, True),
        ("max_workspace_size", 7, True),
        ("BuilderFlag.STRICT_TYPES", 10, False),
        ("build_engine", 11, False),
        ("IPluginV2DynamicExt", 12, False),
    ]
    g = run(tmp_path, "def build(builder):\n    return builder.build_engine()\n", rel="other.py")
    assert g.trt_api_uses == ()  # not a TensorRT file: `build_engine` is someone else's method


def test_python_enqueue_and_unnamed_layers(tmp_path):
    f = run(
        tmp_path,
        """
        import tensorrt as trt
        class P(trt.IPluginV3, trt.IPluginV3OneRuntime):
            def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, s):
                launch(inputs, outputs)
        class NotAPlugin:
            def enqueue(self, item):
                self.q.append(item)
        def layers(ctx, x):
            a = ctx.net.add_shuffle(x)
            helper(a)
            ctx.net.add_output(x)
            set_layer_name(ctx.net.add_identity(x), "t", "n")
            return ctx.net.add_unary(x).get_output(0)
        """,
    )
    assert [(e.cls, e.stream_param, e.stream_used, e.has_work) for e in f.py_enqueues] == [("P", "s", False, True)]
    assert [(u.method, u.span.line, u.function) for u in f.unnamed_layers] == [("add_unary", 14, "layers")]


def test_files_without_markers_are_not_walked(tmp_path):
    # the pre-filter matches (onnxscript Opset) but none of this module's markers: no extra walk, no facts
    assert tt._gate().search("import onnxscript\nop = onnxscript.values.Opset('d', 1)\n") is None
    f = run(tmp_path, "import onnxscript\nop = onnxscript.values.Opset('d', 1)\ndef f(x):\n    return op.Foo(x)\n")
    assert f.converters == () and f.unnamed_layers == () and f.trt_api_uses == ()


def test_tensorrt_version_config_key():
    s = Settings()
    apply_table(s, {"tensorrt-version": "10.8"}, "t")
    assert s.tensorrt_version == "10.8"
    with pytest.raises(ConfigError, match="'tensorrt-version' must be a TensorRT version"):
        apply_table(Settings(), {"tensorrt-version": 10.8}, "t")
    with pytest.raises(ConfigError, match="must be a TensorRT version"):
        apply_table(Settings(), {"tensorrt-version": "ten"}, "t")


def test_torch_tensorrt_profile_detected(tmp_path):
    (tmp_path / "py/torch_tensorrt/dynamo/conversion").mkdir(parents=True)
    (tmp_path / "docs/v2/_downloads").mkdir(parents=True)
    conv = "import torch\nfrom torch_tensorrt.dynamo.conversion import dynamo_tensorrt_converter\n"
    (tmp_path / "py/torch_tensorrt/dynamo/conversion/ops.py").write_text(
        conv + "@dynamo_tensorrt_converter(torch.ops.aten.matmul)\ndef c(ctx, t, a, k, n):\n    return a[0]\n"
    )
    # rendered docs carry copies of the examples: excluded by the profile
    (tmp_path / "docs/v2/_downloads/copy.py").write_text(
        conv + "@dynamo_tensorrt_converter(torch.ops.aten.mm)\ndef c(ctx, t, a, k, n):\n    return a[0]\n"
    )
    res = check_project(tmp_path, select=["TRT603"])
    assert res.profile.name == "torch-tensorrt"
    assert [(d.span.path, d.span.line) for d in res.diagnostics] == [("py/torch_tensorrt/dynamo/conversion/ops.py", 3)]
