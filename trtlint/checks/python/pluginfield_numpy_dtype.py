from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic
from ..base import Rule

# PluginFieldType -> the numpy dtypes whose bytes the plugin reads correctly for it
_ACCEPTS = {
    "INT8": {"int8", "uint8", "bool"},
    "INT16": {"int16"},
    "INT32": {"int32"},
    "INT64": {"int64"},
    "FLOAT16": {"float16"},
    "FLOAT32": {"float32"},
    "FLOAT64": {"float64"},
    "CHAR": {"int8", "uint8", "bytes"},
    "BF16": set(),
    "FP8": set(),
}
_WIDTH = {"int8": 1, "uint8": 1, "bool": 1, "int16": 2, "float16": 2, "int32": 4, "float32": 4, "int64": 8, "float64": 8}

_HEAD = "import numpy as np\nimport tensorrt as trt\n"


class PluginFieldNumpyDtype(Rule):
    """`trt.PluginField` data whose numpy dtype does not match its `PluginFieldType`.

    ## What it does
    For every `trt.PluginField(name, data, trt.PluginFieldType.X)` whose data is a numpy expression with a
    known dtype (`np.array(..., dtype=np.int32)`, `np.float32(x)`, `.astype(...)`, a torch tensor converted and
    handed to numpy, `w.detach().cpu().float().numpy()` (float32; `.half()` float16, `.int()` int32, `.long()`
    int64...), or a literal list whose numpy default is int64/float64) compares that dtype with the field type.
    Data named by a local variable takes the dtype of its value when every binding of the name in the function
    (or module) is a plain assignment of a value of that one dtype; a parameter, a loop or tuple target, or two
    values of different dtypes leave it unknown.

    ## Why it matters
    The binding passes the array's buffer as-is; the creator reinterprets the bytes as the declared type.
    `np.array([3])` is int64: read as `kINT32` the plugin gets `3` and then a `0` from the high word (or,
    for several values, every other value), and `np.array([1e-5])` read as `kFLOAT32` is garbage. Nothing
    fails: the engine builds and computes wrong values.

    ## Example
    ```python
    trt.PluginField("axis", np.array([1]), trt.PluginFieldType.INT32)         # int64 data
    ```

    ## Fix
    Give the array the field's dtype: `np.array([1], dtype=np.int32)`.
    """

    code = "TRT609"
    reads = frozenset({"converters", "files", "py_classes", "py_enqueues", "py_plugin_fields", "py_signatures",
                        "qdp_defs", "torch_op_uses", "trt_api_uses", "unnamed_layers"})
    name = "pluginfield-numpy-dtype"
    family = "python"

    VALID = [
        {
            # a name bound to two dtypes, or once to a value of unknown dtype: not judged
            "files": {
                "convert.py": _HEAD
                + "\n\ndef convert(kwargs, flag, w):\n"
                "    if flag:\n        w = w.astype(np.float32)\n"
                '    f = trt.PluginField("w", w, trt.PluginFieldType.FLOAT16)\n'
                "    v = np.array([1], dtype=np.int32)\n"
                "    if flag:\n        v = np.array([1.0], dtype=np.float32)\n"
                '    shape = kwargs["shape"]\n'
                '    return [trt.PluginField("v", v, trt.PluginFieldType.INT32),\n'
                '            trt.PluginField("shape", shape, trt.PluginFieldType.INT32),\n'
                '            trt.PluginField("g", kwargs["w"].float().numpy(), trt.PluginFieldType.FLOAT32)]\n'
            }
        },
        {
            "files": {
                "build.py": _HEAD
                + 'a = trt.PluginField("axis", np.array([1], dtype=np.int32), trt.PluginFieldType.INT32)\n'
                'b = trt.PluginField("eps", np.array([1e-5], dtype=np.float32), trt.PluginFieldType.FLOAT32)\n'
                'c = trt.PluginField("mode", "relu".encode(), trt.PluginFieldType.CHAR)\n'
                'd = trt.PluginField("pads", np.array([]), trt.PluginFieldType.INT32)\n'
                'e = trt.PluginField("n", np.int64(4), trt.PluginFieldType.INT64)\n'
            }
        }
    ]
    INVALID = [
        {
            # a converter's weight, converted by torch and named by a local: float32 data for an INT32 field
            "files": {
                "convert.py": _HEAD
                + "\n\ndef convert(kwargs):\n"
                '    gamma = kwargs["weight"].detach().cpu().float().numpy()\n'
                '    return trt.PluginField("gamma", gamma, trt.PluginFieldType.INT32)\n'
            },
            "expect": [("convert.py", 7, "PluginField 'gamma': data gamma is float32 but the field type is INT32")],
        },
        {
            "files": {
                "build.py": _HEAD
                + 'a = trt.PluginField("axis", np.array([1]), trt.PluginFieldType.INT32)\n'
                'b = trt.PluginField("eps", np.array([1e-5]), trt.PluginFieldType.FLOAT32)\n'
                'c = trt.PluginField("k", np.array([2], dtype=np.int32), type=trt.PluginFieldType.INT64)\n'
            },
            "expect": [
                ("build.py", 3, "PluginField 'axis': data np.array([1]) is int64 (numpy's default for integer literals) but the field type is INT32"),
                ("build.py", 4, "PluginField 'eps': data np.array([1e-5]) is float64 (numpy's default for float literals) but the field type is FLOAT32"),
                ("build.py", 5, "PluginField 'k': data np.array([2], dtype=np.int32) is int32 but the field type is INT64"),
            ],
        }
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        for f in index.py_plugin_fields:
            if f.field_type is None or f.dtype is None or f.empty:
                continue
            ok = _ACCEPTS.get(f.field_type)
            if ok is None or not ok or f.dtype in ok:
                continue
            why = ""
            if not f.dtype_explicit:
                why = " (numpy's default for integer literals)" if f.dtype == "int64" else (
                    " (numpy's default for float literals)" if f.dtype == "float64" else "")
            wa, wb = _WIDTH.get(f.dtype), {"INT8": 1, "INT16": 2, "INT32": 4, "INT64": 8, "FLOAT16": 2, "FLOAT32": 4, "FLOAT64": 8, "CHAR": 1}.get(f.field_type)
            width = f" ({wa}-byte elements read as {wb}-byte ones)" if wa and wb and wa != wb else ""
            name = f"'{f.name}'" if f.name else "(unnamed)"
            yield self.diag(
                f.span,
                f"PluginField {name}: data {f.data} is {f.dtype}{why} but the field type is {f.field_type}{width}: "
                "the creator reinterprets the bytes",
                symbol=f.name or "",
            )
