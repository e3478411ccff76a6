"""TensorRT's ONNX parser as data: which ops its built-in importers take in which TensorRT release
(``rules/onnx_tensorrt.yaml``, key ``onnx_importers``) and what they restrict (``rules/onnx_tensorrt_restrictions.yaml``,
key ``onnx_restrictions``): the packs' schemas and :class:`OnnxImporters`, the one answer to "does release X.Y import
this op" for ``trtlint check`` (the ONNX rules) and ``trtlint coverage`` alike. Also the TensorRT version helpers
(:func:`parse_version`, :func:`version_at_least`) the packs and rules share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

_STR_LIST = {"type": "array", "items": {"type": "string"}}
_RELEASE_MAP = {"type": "object", "additionalProperties": {"type": "string"}}

ONNX_IMPORTERS_SCHEMA = {
    "type": "object",
    "required": ["ops"],
    "properties": {
        "parser": {"type": "string"},
        "oldest": {"type": "string"},
        "newest": {"type": "string"},
        "sources": _RELEASE_MAP,
        "ops": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "since": _RELEASE_MAP,  # op -> the first release that imports it
        "until": _RELEASE_MAP,  # op -> the last release that imported it
        # op -> [after, by]: first imported by a release in that range (the changelog does not say which)
        "undated": {"type": "object", "additionalProperties": {**_STR_LIST, "minItems": 2, "maxItems": 2}},
    },
    "additionalProperties": False,
}

# what the ONNX parser's built-in importers restrict (rules/onnx_tensorrt_restrictions.yaml; trtlint coverage)
ONNX_RESTRICTIONS_SCHEMA = {
    "type": "object",
    "properties": {
        "source": {"type": "string"},
        "tensorrt": {"type": "string"},
        "opsets": {"type": "object", "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}}, "additionalProperties": False},
        "type_inputs": {"type": "object", "additionalProperties": {"type": "integer"}},
        "types": {"type": "object", "additionalProperties": _STR_LIST},
        "checks": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["op", "kind", "reason"],
                "properties": {
                    "op": {"type": "string", "minLength": 1},
                    "kind": {"enum": ["attribute", "constant_input", "opset"]},
                    "min": {"type": "integer"},
                    "max": {"type": "integer"},
                    "reason": {"type": "string"},
                    "attribute": {"type": "string"},
                    "allowed": {"type": "array"},
                    "all_equal": {},
                    "length_in": {"type": "array", "items": {"type": "integer"}},
                    "absent": {"type": "boolean"},
                    "input": {"type": "integer", "minimum": 0},
                    "name": {"type": "string"},
                    "since": {"type": "string"},
                    "until": {"type": "string"},
                },
                "additionalProperties": False,
            },
        },
        # op -> the export option that avoids an op a release has no importer for (trtlint coverage's next step)
        "export": {"type": "object", "additionalProperties": {"type": "string"}},
        "unchecked": {
            "type": "array",
            "items": {"type": "object", "required": ["op", "what"], "properties": {"op": {"type": "string"}, "what": {"type": "string"}}, "additionalProperties": False},
        },
    },
    "additionalProperties": False,
}


def parse_version(v: str) -> tuple[int, ...]:
    """"10.8" -> (10, 8); "10.x" / "10" -> (10,); an unparsable string -> ()."""
    out = []
    for part in str(v).strip().split("."):
        if not part.isdigit():
            break
        out.append(int(part))
    return tuple(out)


def version_at_least(target: str, v: Optional[str]) -> bool:
    """Whether TensorRT ``target`` ("10.x", "10.8", "11") is at or after release ``v`` ("10.0", "8.5").
    A target given as a major only ("10", "10.x") is the newest release of that major."""
    if not v:
        return False
    t, w = parse_version(target), parse_version(v)
    if not t or not w:
        return False
    if len(t) == 1:
        return t[0] >= w[0]
    return t >= w[: len(t)] if len(w) > len(t) else t >= w


def _minor_step(v: str, step: int) -> str:
    t = parse_version(v)
    return f"{t[0]}.{t[1] + step}" if len(t) >= 2 and t[1] + step >= 0 else v


@dataclass
class OnnxImporters:
    """The ``onnx_importers`` packs merged: every op some release imports (``ops``) and, per op, since / until
    which release. An op a user pack adds without ``since`` is imported in every release."""

    ops: set = field(default_factory=set)
    since: dict = field(default_factory=dict)
    until: dict = field(default_factory=dict)
    undated: dict = field(default_factory=dict)
    oldest: str = ""
    newest: str = ""
    _memo: dict = field(default_factory=dict, repr=False, compare=False)  # (op_type, release) -> imports()

    def add(self, pack: dict) -> None:
        self._memo.clear()
        self.ops.update(pack["ops"])
        self.since.update(pack.get("since") or {})
        self.until.update(pack.get("until") or {})
        self.undated.update({k: (v[0], v[1]) for k, v in (pack.get("undated") or {}).items()})
        self.oldest = pack.get("oldest", self.oldest)
        self.newest = pack.get("newest", self.newest)

    def imports(self, op_type: str, release: Optional[str]) -> tuple[bool, str]:
        """Whether TensorRT ``release``'s ONNX parser has a built-in importer for ``op_type``, and a note: "" when
        the list says so plainly, else why not (added in a later release, no longer imported) or why it may not be
        (a release the changelog does not date). ``release`` None or unparsable: the newest list. A release outside
        the list's range is judged by its nearest end (a major alone, "10", is that major's newest release)."""
        key = (op_type, release)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = self._imports(op_type, release)
        return got

    def _imports(self, op_type: str, release: Optional[str]) -> tuple[bool, str]:
        if op_type not in self.ops:
            return False, ""
        if not release or not parse_version(release):
            return True, ""
        since = self.since.get(op_type)
        if since and not version_at_least(release, since):
            return False, f"TensorRT's ONNX parser imports {op_type} since TensorRT {since}, not in {release}"
        until = self.until.get(op_type)
        if until and version_at_least(release, _minor_step(until, 1)):
            return False, f"TensorRT's ONNX parser imported {op_type} up to TensorRT {until}, not in {release}"
        if op_type in self.undated:
            after, by = self.undated[op_type]
            if not version_at_least(release, after):
                return False, (f"TensorRT's ONNX parser imports {op_type} since a release after {_minor_step(after, -1)}"
                               f", not in {release}")
            if not version_at_least(release, by):
                return True, (f"the parser imports {op_type} since a release from {after} to {by} (the changelog does not "
                              f"say which): {release} may not")
        return True, ""
