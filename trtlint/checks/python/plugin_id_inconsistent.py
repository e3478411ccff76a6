from __future__ import annotations

from typing import Iterable

from ...diagnostics import Diagnostic, Related
from ..base import Rule
from ._examples import QDP_HEADER, qdp_register
from ._qdp import id_problem

_TTRT = "import torch_tensorrt\n"
_WHAT = {
    "register": "@trtp.register",
    "impl": "@trtp.impl",
    "autotune": "@trtp.autotune",
    "aot_impl": "@trtp.aot_impl",
    "generate_plugin": "generate_plugin",
    "generate_plugin_converter": "generate_plugin_converter",
    "custom_op": "torch_tensorrt custom_op",
}


class PluginIdInconsistent(Rule):
    """A plugin id is malformed, registered twice, or used by an impl/converter that nothing registers.

    ## What it does
    Collects every plugin id in the project: `@trtp.register` / `@trtp.impl` / `@trtp.autotune` /
    `@trtp.aot_impl` (`tensorrt.plugin`), and Torch-TensorRT's `generate_plugin`,
    `generate_plugin_converter` and `custom_op` (which register through `tensorrt.plugin`). Reports:
    - an id that is not `namespace::name`, has a `.` in either part, or uses a reserved namespace
      (`""`, `trt`, `tensorrt`, `std`);
    - an impl / autotune / aot_impl or `generate_plugin_converter` whose id no register, `generate_plugin`
      or `custom_op` in the project defines (a typo, or a different namespace);
    - an id defined twice at module level (`@trtp.register` plus `generate_plugin` for the same op).

    ## Why it matters
    TensorRT raises "Plugin ... is not registered" / "already has a definition" when the module is
    imported; Torch-TensorRT asserts "Could not find a tensorrt plugin registered for op" when the converter
    is generated. Both only on a machine with TensorRT, usually in the example or test that imports the file.

    ## Example
    ```python
    @trtp.register("my::add_one")
    def desc(x: trtp.TensorDesc) -> trtp.TensorDesc: ...
    @trtp.impl("my::addone")            # typo: not registered
    def impl(x, outputs, stream): ...
    ```

    ## Fix
    Use the same `namespace::name` everywhere; define each plugin once.
    """

    code = "TRT606"
    name = "plugin-id-inconsistent"
    family = "python"

    VALID = [
        {
            "files": {
                "plugins/defs.py": QDP_HEADER + qdp_register(sig="x: trtp.TensorDesc"),
                "plugins/impl.py": QDP_HEADER
                + '@trtp.impl("my::add_one")\n'
                "def add_one_impl(x, outputs, stream) -> None:\n"
                "    with torch.cuda.stream(torch.cuda.ExternalStream(stream)):\n"
                "        pass\n",
                "examples/gen.py": "import torch\n" + _TTRT
                + 'torch_tensorrt.dynamo.conversion.plugins.generate_plugin("ex::scale")\n'
                'torch_tensorrt.dynamo.conversion.plugins.generate_plugin_converter("ex::scale")\n'
                'torch_tensorrt.dynamo.conversion.plugins.generate_plugin_converter("my::add_one")\n',
            }
        }
    ]
    INVALID = [
        {
            "files": {
                "plugins/defs.py": QDP_HEADER + qdp_register(sig="x: trtp.TensorDesc")
                + '@trtp.register("trt::clash")\n'
                "def clash(x: trtp.TensorDesc) -> trtp.TensorDesc:\n"
                "    return x.like()\n",
                "plugins/impl.py": QDP_HEADER
                + '@trtp.impl("my::addone")\n'
                "def add_one_impl(x, outputs, stream) -> None:\n"
                "    with torch.cuda.stream(torch.cuda.ExternalStream(stream)):\n"
                "        pass\n",
                "examples/gen.py": "import torch\n" + _TTRT
                + 'torch_tensorrt.dynamo.conversion.plugins.generate_plugin("my::add_one")\n'
                'torch_tensorrt.dynamo.conversion.plugins.generate_plugin_converter("ex.scale")\n',
            },
            "expect": [
                ("plugins/defs.py", 9, "the namespace 'trt' of 'trt::clash' is reserved"),
                ("plugins/impl.py", 6, "@trtp.impl uses plugin id 'my::addone', which nothing in the project registers (registered: 'my::add_one')"),
                ("examples/gen.py", 3, "generate_plugin defines 'my::add_one' a second time"),
                ("examples/gen.py", 4, "'ex.scale' is not of the form 'namespace::name'"),
            ],
        }
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        uses = []  # (kind, id, span, module_level)
        for d in index.qdp_defs:
            uses.append((d.kind, d.plugin_id, d.id_span, not d.nested))
        for u in index.torch_op_uses:
            if u.kind in ("generate_plugin", "generate_plugin_converter", "custom_op"):
                uses.append((u.kind, u.op, u.span, True))
        defined: dict[str, list] = {}
        for kind, pid, span, top in uses:
            if pid is None:
                continue
            why = id_problem(pid)
            if why is not None:
                yield self.diag(span, f"{_WHAT[kind]}: plugin id {why}", symbol=pid)
                continue
            if kind in ("register", "generate_plugin", "custom_op"):
                defined.setdefault(pid, []).append((kind, span, top))
        for pid, defs in defined.items():
            tops = [d for d in defs if d[2]]
            for kind, span, _ in tops[1:]:
                first = tops[0]
                yield self.diag(
                    span,
                    f"{_WHAT[kind]} defines '{pid}' a second time: tensorrt.plugin raises "
                    f"\"already has a definition\" when this runs",
                    related=[Related(first[1], f"first defined here by {_WHAT[first[0]]}")],
                    symbol=pid,
                )
        known = sorted(defined)
        for kind, pid, span, _ in uses:
            if pid is None or kind not in ("impl", "autotune", "aot_impl", "generate_plugin_converter"):
                continue
            if id_problem(pid) is not None or pid in defined:
                continue
            if not known:
                continue  # no definition at all in this project: it may come from an installed package
            import difflib

            close = difflib.get_close_matches(pid, known, n=3, cutoff=0.6)
            hint = f" (registered: {', '.join(repr(c) for c in close)})" if close else ""
            yield self.diag(
                span,
                f"{_WHAT[kind]} uses plugin id '{pid}', which nothing in the project registers{hint}",
                symbol=pid,
            )
