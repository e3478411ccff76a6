"""The entry budget of an ONNX model, judged from its bytes before protobuf parses them.

protobuf's parser turns every submessage into an object of its own: an empty ``NodeProto`` is two bytes in the
file and about 150 in memory, so a 24 MB file of 12.6 million empty nodes needs 1.9 GB to parse (and the
frontend's walk over them several GB more). What a file can cost is therefore its number of *parts* (messages),
not its size. :func:`over_budget` counts them with a scan of the wire format that descends only into
message-typed fields (graphs, nodes, attributes, tensors, types...): a tensor's weights (``raw_data``, packed
numbers) are one field, skipped by their length. The scan stops at either budget (``MAX_PARTS`` messages,
``MAX_ENTRIES`` fields read), so its own time is bounded; a file smaller than two bytes per part of the budget
cannot exceed it and is not scanned. Malformed bytes end the scan quietly: the parse says what is wrong with
them.

Field numbers are onnx.proto's (IR version 11); a field this table does not know is skipped, not descended.
"""

from __future__ import annotations

from typing import Optional

MAX_PARTS = 2_000_000  # messages (nodes, attributes, tensors, shapes...) a model may hold: ~300 MB to parse
MAX_ENTRIES = 16_000_000  # fields of those messages the scan reads at most (a few seconds)
_MAX_NESTING = 100  # protobuf's own recursion limit: deeper messages fail its parse

# message -> {field number: message type of that field}; only fields that hold messages
_MODEL, _GRAPH, _NODE, _ATTR, _TENSOR, _SPARSE, _VALUE, _TYPE, _FUNC, _TRAIN = range(10)
_TYPE_TENSOR, _TYPE_SEQ, _TYPE_MAP, _TYPE_OPT, _SHAPE, _DIM, _ENTRY, _ANNOT, _NODE_DEV, _SHARDING = range(10, 20)
_INTLIST, _SHARDED_DIM, _SIMPLE_DIM, _SEGMENT, _OPSET, _DEVCONF = range(20, 26)
_FIELDS: dict[int, dict[int, int]] = {
    _MODEL: {7: _GRAPH, 8: _OPSET, 14: _ENTRY, 20: _TRAIN, 25: _FUNC, 26: _DEVCONF},
    _GRAPH: {1: _NODE, 5: _TENSOR, 11: _VALUE, 12: _VALUE, 13: _VALUE, 14: _ANNOT, 15: _SPARSE, 16: _ENTRY},
    _NODE: {5: _ATTR, 9: _ENTRY, 10: _NODE_DEV},
    _ATTR: {5: _TENSOR, 6: _GRAPH, 10: _TENSOR, 11: _GRAPH, 14: _TYPE, 15: _TYPE, 22: _SPARSE, 23: _SPARSE},
    _TENSOR: {3: _SEGMENT, 13: _ENTRY, 16: _ENTRY},
    _SPARSE: {1: _TENSOR, 2: _TENSOR},
    _VALUE: {2: _TYPE, 4: _ENTRY},
    _TYPE: {1: _TYPE_TENSOR, 4: _TYPE_SEQ, 5: _TYPE_MAP, 8: _TYPE_TENSOR, 9: _TYPE_OPT},
    _TYPE_TENSOR: {2: _SHAPE},
    _TYPE_SEQ: {1: _TYPE},
    _TYPE_MAP: {2: _TYPE},
    _TYPE_OPT: {1: _TYPE},
    _SHAPE: {1: _DIM},
    _FUNC: {7: _NODE, 9: _OPSET, 11: _ATTR, 12: _VALUE, 14: _ENTRY},
    _TRAIN: {1: _GRAPH, 2: _GRAPH, 3: _ENTRY, 4: _ENTRY},
    _ANNOT: {2: _ENTRY},
    _NODE_DEV: {2: _SHARDING},
    _SHARDING: {3: _INTLIST, 4: _SHARDED_DIM},
    _SHARDED_DIM: {2: _SIMPLE_DIM},
    _DEVCONF: {},
}


def over_budget(data: bytes, parts: int = MAX_PARTS, entries: int = MAX_ENTRIES) -> Optional[str]:
    """Why the model in ``data`` is too large to parse (more than ``parts`` messages, or more than ``entries``
    fields in them), or None when it is within both."""
    size = len(data)
    if size < 2 * parts:  # every message takes at least two bytes (a tag and a length)
        return None
    n_parts = n_entries = 0
    stack: list[tuple[int, dict]] = []  # the enclosing messages: (end of their bytes, their fields' types)
    end, fields = size, _FIELDS[_MODEL]  # the message being read: first the model, the whole file
    i = 0
    while True:
        if i >= end:
            if not stack:
                return None
            end, fields = stack.pop()
            continue
        n_entries += 1
        if n_entries > entries:
            return f"more than {entries} fields, over the limit trtlint parses"
        tag = data[i]
        i += 1
        if tag >= 0x80:
            tag, i = _varint(data, i - 1, end)
            if tag is None:
                return None
        wire = tag & 7
        if wire == 2:
            n = data[i] if i < end else 0x80
            if n < 0x80:
                i += 1
            else:
                n, i = _varint(data, i, end)
                if n is None:
                    return None
            if i + n > end:
                return None
            sub = fields.get(tag >> 3)
            if sub is None:
                i += n
                continue
            n_parts += 1
            if n_parts > parts:
                return f"more than {parts} nodes, attributes, tensors and other parts, over the limit trtlint parses"
            if n and len(stack) < _MAX_NESTING:  # its fields are read next, then on after it
                stack.append((end, fields))
                end, fields = i + n, _FIELDS.get(sub, _NONE)
            else:
                i += n
        elif wire == 0:
            while i < end and data[i] >= 0x80:
                i += 1
            i += 1
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        else:  # groups (3, 4) are not in onnx.proto; anything else is not a model
            return None


_NONE: dict[int, int] = {}


def _varint(data: bytes, i: int, end: int) -> tuple[Optional[int], int]:
    value = shift = 0
    while i < end and shift < 64:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7
    return None, i
