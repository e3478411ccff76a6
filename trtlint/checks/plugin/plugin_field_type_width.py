from __future__ import annotations

from typing import Iterable, Optional

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule
from ..examples.plugin import plugin_class

# PluginFieldType -> (what TensorRT reads, allowed pointee kinds, size in bytes or None for "any")
_EXPECT: dict[str, tuple[str, tuple[str, ...], Optional[int]]] = {
    "kINT32": ("a 4-byte integer", ("int", "enum"), 4),
    "kINT64": ("an 8-byte integer", ("int", "enum"), 8),
    "kINT16": ("a 2-byte integer", ("int", "enum"), 2),
    "kINT8": ("a 1-byte integer", ("int", "char", "bool", "enum"), 1),
    "kCHAR": ("1-byte characters", ("char", "int"), 1),
    "kFLOAT32": ("a 4-byte float", ("float",), 4),
    "kFLOAT64": ("an 8-byte double", ("float",), 8),
    "kFLOAT16": ("a 2-byte half", ("float", "int", "record"), 2),
    "kBF16": ("a 2-byte bfloat16", ("float", "int", "record"), 2),
}

_GFS = """    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {{
        mData.clear();
        mData.emplace_back("flag", &mFlag, PluginFieldType::{t}, 1);
        mFC.nbFields = static_cast<int32_t>(mData.size());
        mFC.fields = mData.data();
        return &mFC;
    }}
    {decl} mFlag{{}};
    std::vector<PluginField> mData;
    PluginFieldCollection mFC{{}};"""


_ASSIGNED = """    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {{
        PluginField f("anchors", nullptr, PluginFieldType::{t}, 5);
        f.data = mAnchors;
        mData.clear();
        mData.push_back(f);
        mFC.nbFields = static_cast<int32_t>(mData.size());
        mFC.fields = mData.data();
        return &mFC;
    }}
    {decl} mAnchors[5]{{}};
    std::vector<PluginField> mData;
    PluginFieldCollection mFC{{}};"""


class PluginFieldTypeWidth(Rule):
    """A `PluginField` whose data's C++ type does not match its `PluginFieldType`.

    ## What it does
    For every `PluginField(name, data, type, length)` (or `emplace_back` of one) whose data points to a
    C++ object of known type, compares that type with what the `PluginFieldType` makes TensorRT read:
    `kINT32` a 4-byte integer, `kINT64` 8 bytes, `kFLOAT32` a 4-byte float, `kFLOAT64` a double, `kCHAR`
    bytes, ... A `bool`, `size_t`, `int64_t` or `float` declared as `kINT32` is reported, naming both types. A
    field built without data and completed by assignment (`PluginField f("a", nullptr, kFLOAT32, 5);
    f.data = arr;`) is judged at the assignment.

    ## Why it matters
    TensorRT copies `length` elements of the declared width from the pointer. A `bool` member serialized as
    `kINT32` reads three bytes past it; an `int64_t` as `kINT32` keeps only the low half (wrong on big
    values, wrong on any big-endian reader); a `float` as `kINT32` arrives as a meaningless integer. The
    engine still builds and deserializes: the plugin computes with garbage.

    ## Example
    ```cpp
    bool mCausal;
    mData.emplace_back("causal", &mCausal, PluginFieldType::kINT32, 1);   // reads 4 bytes of a 1-byte bool
    ```

    ## Fix
    Store the field in a variable of the declared width (`int32_t mCausal`), or serialize a converted copy
    kept alive as a member (`mCausalI32 = mCausal ? 1 : 0;`), or change the `PluginFieldType` to match.
    """

    code = "TRT208"
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "lifecycle", "py_creators", "registrations"})
    name = "plugin-field-type-width"
    family = "plugin"

    VALID = [
        {"files": {"plugins/foo.cpp": plugin_class(_GFS.format(t="kINT32", decl="int32_t"))}},
        {"files": {"plugins/foo.cpp": plugin_class(_GFS.format(t="kFLOAT32", decl="float"))}},
    ]
    INVALID = [
        {
            "files": {"plugins/foo.cpp": plugin_class(_GFS.format(t="kINT32", decl="bool"))},
            "expect": [("plugins/foo.cpp", 11, "PluginField 'flag' is declared kINT32 (TensorRT reads a 4-byte integer), but its data `&mFlag` points to bool (1 byte)")],
        },
        {
            "files": {"plugins/foo.cpp": plugin_class(_GFS.format(t="kINT32", decl="int64_t"))},
            "expect": [("plugins/foo.cpp", 11, "points to long (8 bytes)")],
        },
        {
            "files": {"plugins/foo.cpp": plugin_class(_GFS.format(t="kFLOAT32", decl="int32_t"))},
            "expect": [("plugins/foo.cpp", 11, "PluginField 'flag' is declared kFLOAT32 (TensorRT reads a 4-byte float), but its data `&mFlag` points to int (4 bytes)")],
        },
    ]

    VALID += [
        # a field built without data and completed by assignment (`f.data = mAnchors`): floats declared kFLOAT32
        {"files": {"plugins/foo.cpp": plugin_class(_ASSIGNED.format(t="kFLOAT32", decl="float"))}},
    ]
    INVALID += [
        {
            # ... an int[5] declared kFLOAT32: judged at the assignment
            "files": {"plugins/foo.cpp": plugin_class(_ASSIGNED.format(t="kFLOAT32", decl="int32_t"))},
            "expect": [("plugins/foo.cpp", 11, "PluginField 'anchors' is declared kFLOAT32 (TensorRT reads a 4-byte float), "
                                              "but its data `mAnchors` points to int (4 bytes)")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        seen = set()
        for md in index.lifecycle.values():
            for f in md.field_data:
                exp = _EXPECT.get(f.ftype or "")
                if exp is None or f.pointee_kind is None or f.pointee_size is None:
                    continue
                what, kinds, size = exp
                if f.pointee_kind in kinds and (size is None or f.pointee_size == size):
                    continue
                key = (f.span.path, f.span.line, f.span.col)
                if key in seen:
                    continue
                seen.add(key)
                unit = "byte" if f.pointee_size == 1 else "bytes"
                pointee = f.pointee.replace("const ", "") if f.pointee else "?"
                rel = [Related(f.var_span, f"`{f.var}` is declared here")] if f.var_span and f.var else []
                yield self.diag(
                    f.span,
                    f"PluginField '{f.name}' is declared {f.ftype} (TensorRT reads {what}), but its data `{f.data}` "
                    f"points to {pointee} ({f.pointee_size} {unit})",
                    related=rel,
                    symbol=f"{md.qualname}:{f.name}",
                )
