"""Confirm recipes: what a finding's repro does on a machine with TensorRT.

A rule declares its recipe with the class attribute ``confirm`` (a recipe name, see :data:`RECIPES`). Rules
that do not (yet) declare one get the default for their code from :data:`DEFAULT_BY_CODE`, so a recipe
applies to a rule as soon as it lands (TRT104, TRT202, TRT303 were written in parallel with this module).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

#: requirement names, in the order a skipped status reports them
TENSORRT, GPU, PLUGIN_LIB, SHAPES = "tensorrt", "a GPU", "the plugin library", "input shapes"


@dataclass(frozen=True)
class Recipe:
    name: str
    needs: tuple[str, ...]  # of TENSORRT, GPU, PLUGIN_LIB, SHAPES
    what: str  # one sentence for the README
    subject_kinds: tuple[str, ...]


RECIPES: dict[str, Recipe] = {
    r.name: r
    for r in (
        Recipe(
            "creator-lookup",
            (TENSORRT, PLUGIN_LIB),
            "loads the plugin library, looks the creator up by (name, version, namespace) exactly as the route "
            "does, and parses a one-node ONNX model of the emitted node with TensorRT's ONNX parser (the parse "
            "step needs a GPU and is left out without one)",
            ("route",),
        ),
        Recipe(
            "attribute-fields",
            (TENSORRT, PLUGIN_LIB),
            "loads the plugin library, reads the field names the creator declares, compares them with the "
            "node's attributes, and parses the one-node model, collecting what the parser says about the "
            "attribute (the parse step needs a GPU)",
            ("route",),
        ),
        Recipe(
            "serialize-roundtrip",
            (TENSORRT, GPU, PLUGIN_LIB, SHAPES),
            "builds a one-layer engine from the one-node model, serializes and deserializes it, runs it, then "
            "builds it again with the flagged field changed and compares the outputs after deserialization",
            ("plugin", "route"),
        ),
        Recipe(
            "graph-capture",
            (TENSORRT, GPU, PLUGIN_LIB, SHAPES),
            "builds a one-layer engine from the one-node model, runs it once, then runs it again under CUDA-graph "
            "stream capture (mode global), where allocations, synchronization and default-stream work fail",
            ("hotpath",),
        ),
        Recipe(
            "library-symbols",
            (PLUGIN_LIB,),
            "lists the symbols the built plugin library defines (nm) and looks for the functions the .cu file "
            "defines; needs no GPU and no TensorRT",
            ("cuda-file",),
        ),
    )
}

DEFAULT_BY_CODE: dict[str, str] = {
    "TRT101": "creator-lookup",
    "TRT102": "creator-lookup",
    "TRT104": "creator-lookup",
    "TRT103": "attribute-fields",
    "TRT202": "serialize-roundtrip",
    "TRT301": "graph-capture",
    "TRT302": "graph-capture",
    "TRT303": "graph-capture",
    "TRT401": "library-symbols",
}

#: what TensorRT does when the finding is real, per rule code (the README's "expected" line)
EXPECT: dict[str, str] = {
    "TRT101": "no creator registers the name: the ONNX parser fails with 'Plugin not found'",
    "TRT102": "the creator registers another version: the lookup with the route's version fails",
    "TRT104": "the creator registers under another namespace: the lookup with the route's namespace fails",
    "TRT103": "the parser passes the creator only its declared fields: an undeclared attribute is dropped",
    "TRT202": "a field the runtime-phase creator reads is not serialized: deserialization fails or the value is lost",
    "TRT301": "a device allocation or free in enqueue is refused during CUDA-graph capture (host allocations are not)",
    "TRT302": "a synchronizing call in enqueue is illegal during stream capture (cudaErrorStreamCaptureUnsupported)",
    "TRT303": "work on the legacy default stream during global capture fails (cudaErrorStreamCaptureImplicit)",
    "TRT401": "the .cu file is not compiled: its functions are missing from the library",
}


def recipe_for(code: str) -> Optional[Recipe]:
    """The recipe a rule declares (``Rule.confirm``), else the default for its code; None when none applies."""
    from ..checks.registry import find_rule

    rule = find_rule(code)
    name = getattr(rule, "confirm", "") if rule is not None else ""
    name = name or DEFAULT_BY_CODE.get(code.upper(), "")
    return RECIPES.get(name) if name else None
