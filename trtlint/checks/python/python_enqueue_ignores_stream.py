from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic
from ..base import Rule
from ..examples.python import QDP_HEADER, qdp_register

_PLUGIN = (
    "import tensorrt as trt\n"
    "import torch\n"
    "class Pad(trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):\n"
    "    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):\n"
)


class PythonEnqueueIgnoresStream(Rule):
    """A Python plugin `enqueue` (or QDP `impl`) does work without using the stream TensorRT passed in.

    ## What it does
    Reports `enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream)` of a Python plugin
    class and `@trtp.impl` functions whose body calls something but never references the `stream`
    parameter: no `torch.cuda.ExternalStream(stream)`, `cp.cuda.ExternalStream(stream)`, no launch or copy
    taking it.

    ## Why it matters
    PyTorch, CuPy, Triton and Numba launch on their *current* stream, which is not TensorRT's. The
    plugin's work then races with the layers before and after it (reads inputs that are not written yet,
    writes outputs TensorRT already consumed), runs serialized on the legacy default stream, and breaks
    CUDA-graph capture of the engine. The results look right in a simple test and go wrong under load.

    ## Example
    ```python
    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        out = torch.nn.functional.pad(a_t, pads)        # runs on torch's current stream
    ```

    ## Fix
    Run the work on the given stream: `with torch.cuda.stream(torch.cuda.ExternalStream(stream)): ...`
    (CuPy: `with cp.cuda.ExternalStream(stream):`; Triton/Numba: pass the stream to the launch).
    """

    code = "TRT608"
    reads = frozenset({"converters", "files", "py_classes", "py_enqueues", "py_plugin_fields", "py_signatures",
                        "qdp_defs", "torch_op_uses", "trt_api_uses", "unnamed_layers"})
    name = "python-enqueue-ignores-stream"
    family = "python"

    VALID = [
        {
            "files": {
                "pad.py": _PLUGIN
                + "        with torch.cuda.stream(torch.cuda.ExternalStream(stream)):\n"
                "            torch.zeros(1, device='cuda')\n"
                "        return 0\n",
                "qdp.py": QDP_HEADER + qdp_register(sig="x: trtp.TensorDesc")
                + '@trtp.impl("my::add_one")\n'
                "def add_one_impl(x, outputs, stream) -> None:\n"
                "    s = torch.cuda.ExternalStream(stream)\n"
                "    with torch.cuda.stream(s):\n"
                "        torch.as_tensor(outputs[0], device='cuda').fill_(1)\n",
            }
        }
    ]
    INVALID = [
        {
            "files": {
                "pad.py": _PLUGIN + "        torch.zeros(1, device='cuda')\n        return 0\n",
                "qdp.py": QDP_HEADER + qdp_register(sig="x: trtp.TensorDesc")
                + '@trtp.impl("my::add_one")\n'
                "def add_one_impl(x, outputs, stream) -> None:\n"
                "    torch.as_tensor(outputs[0], device='cuda').fill_(1)\n",
            },
            "expect": [
                ("pad.py", 4, "Pad.enqueue never uses its 'stream' argument"),
                ("qdp.py", 10, "@trtp.impl(\"my::add_one\") 'add_one_impl' never uses its 'stream' argument"),
            ],
        }
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        tail = (
            ": the work it launches runs on the library's current stream, not TensorRT's, racing with the "
            "neighbouring layers and breaking CUDA-graph capture"
        )
        for e in index.py_enqueues:
            if e.has_work and not e.stream_used:
                yield self.diag(e.span, f"{e.cls}.enqueue never uses its '{e.stream_param}' argument" + tail, symbol=e.cls)
        for d in index.qdp_defs:
            if d.kind == "impl" and d.has_work and d.stream_used is False and any(p.name == "stream" for p in d.params):
                yield self.diag(
                    d.span,
                    f"@trtp.impl(\"{d.plugin_id}\") '{d.function}' never uses its 'stream' argument" + tail,
                    symbol=d.plugin_id or d.function,
                )
