"""Building blocks for the TRT6xx rules' VALID/INVALID example projects (data, not checks)."""

from __future__ import annotations

CONVERTER_HEADER = (
    "import torch\n"
    "from torch_tensorrt.dynamo.conversion._ConverterRegistry import dynamo_tensorrt_converter\n"
    "from torch_tensorrt.dynamo.conversion.converter_utils import enforce_tensor_types, set_layer_name\n"
)

QDP_HEADER = (
    "from typing import List, Tuple\n"
    "import numpy as np\n"
    "import numpy.typing as npt\n"
    "import tensorrt.plugin as trtp\n"
    "import torch\n"
)


def qdp_register(pid: str = "my::add_one", sig: str = "x: trtp.TensorDesc, k: int", ret: str = "trtp.TensorDesc") -> str:
    return f'@trtp.register("{pid}")\ndef add_one_desc({sig}) -> {ret}:\n    return x.like()\n'
