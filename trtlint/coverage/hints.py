"""What to do next about a node ``trtlint coverage`` finds unsupported or restricted: the closest registered plugin
name for a near miss, a release that imports the op, the export option that avoids it (the restrictions pack's
``export`` map), the fix of the broken restriction, or "write a plugin" with the fields the node carries."""

from __future__ import annotations

import difflib
from typing import Optional

from trtlint.checks.onnx._nodes import RESERVED

NEAR = 0.8  # difflib ratio from which a registered name is a near miss of the node's op_type


def next_step(op_type: str, domain: str, attrs: dict, d, know, release: str) -> str:
    """The next step for an unsupported node (``d``: its :class:`~trtlint.checks.onnx._nodes.Dispatch`)."""
    if d.lookup == "version":
        regs = " or ".join(sorted({repr(k.version) for k in d.candidates if k.version}))
        return f"set plugin_version to {regs} (what {d.candidates[0].source} registers)" if regs else ""
    if d.lookup == "namespace":
        k = d.candidates[0]
        return f"set plugin_namespace (or the node's domain) to '{k.namespace}', where {k.source} registers '{op_type}'"
    steps = []
    later = _first_release(op_type, know.importers, release)
    if later:
        steps.append(f"TensorRT {later} and newer import it: target such a release (judge it with --tensorrt {later})")
    export = (know.restrictions.get("export") or {}).get(op_type)
    if export:
        steps.append(export)
    if d.lookup in ("name", "foreign"):
        near = difflib.get_close_matches(op_type, [n for n in know.creators if n != op_type], n=1, cutoff=NEAR)
        if near:
            k = know.creators[near[0]][0]
            where = f" ({k.span.path}:{k.span.line})" if k.span else ""
            steps.insert(0, f"did you mean '{near[0]}'? {k.source}{where} registers it")
    if not steps:
        steps.append(write_a_plugin(op_type, attrs))
    return "; or ".join(steps)


def write_a_plugin(op_type: str, attrs: dict) -> str:
    fields = [f"{name} ({a[0]})" for name, a in sorted(attrs.items()) if name not in RESERVED]
    carried = f" with the fields {', '.join(fields)}" if fields else " (the node carries no attributes)"
    return f"write a plugin: a creator registering '{op_type}'{carried}"


def _first_release(op_type: str, importers, release: str) -> Optional[str]:
    """The first release after ``release`` that imports ``op_type`` (None: none does, or ``release`` already)."""
    if op_type not in importers.ops or importers.imports(op_type, release)[0]:
        return None
    if op_type in importers.undated:
        return importers.undated[op_type][1]  # the release that surely imports it
    return importers.since.get(op_type)


def restriction_hint(c: dict, node) -> str:
    """How a node can meet the restriction ``c`` (a check of the ``onnx_restrictions`` pack) it breaks."""
    kind = c["kind"]
    if kind == "attribute":
        a = c["attribute"]
        if c.get("absent"):
            return f"export without the attribute {a}"
        if "allowed" in c:
            return f"export with {a} one of {', '.join(repr(v) for v in c['allowed'])}"
        if "all_equal" in c:
            return f"export with every value of {a} {c['all_equal']!r}"
        if "length_in" in c:
            return f"export with {' or '.join(str(n) for n in c['length_in'])} values of {a}"
    if kind == "opset":
        if "min" in c:
            return f"export with ONNX opset {c['min']} or newer"
        if "max" in c:
            return f"export with ONNX opset {c['max']} or older"
    if kind == "constant_input":
        return (f"make input {c['input']} ({c.get('name', '?')}) of {node.op_type} a constant: fold it into an initializer "
                "(`polygraphy surgeon sanitize --fold-constants`, onnx-simplifier) or export it as a static value")
    return ""
