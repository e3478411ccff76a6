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


_CREATOR_READS = """#include <NvInferRuntime.h>
#include <string>
using namespace nvinfer1;
class InterpPluginCreator : public IPluginCreator
{
public:
    char const* getPluginName() const noexcept override { return "Interp"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    IPluginV2* createPlugin(char const* name, PluginFieldCollection const* fc) noexcept override
    {
        std::string mode;
        for (int32_t i = 0; i < fc->nbFields; ++i)
        {
            std::string field(fc->fields[i].name);
            if (field == "mode")
            {
                mode = %s;
            }
        }
        return nullptr;
    }
};
"""

_ROUTE = """#include <NvInferRuntime.h>
#include <string>
#include <vector>
using namespace nvinfer1;
IPluginV2* makeInterp()
{
    std::string mode = "bilinear";
    std::vector<PluginField> f;
    f.emplace_back(PluginField("mode", &mode, PluginFieldType::kCHAR, 1));
    PluginFieldCollection fc;
    fc.nbFields = static_cast<int32_t>(f.size());
    fc.fields = f.data();
    auto* creator = getPluginRegistry()->getPluginCreator("Interp", "1", "");
    return creator->createPlugin("interp", &fc);
}
"""


class PluginFieldTypeWidth(Rule):
    """A `PluginField` whose data's C++ type does not match its `PluginFieldType`.

    ## What it does
    For every `PluginField(name, data, type, length)` (or `emplace_back` of one) whose data points to a
    C++ object of known type, compares that type with what the `PluginFieldType` makes TensorRT read:
    `kINT32` a 4-byte integer, `kINT64` 8 bytes, `kFLOAT32` a 4-byte float, `kFLOAT64` a double, `kCHAR`
    bytes, ... A `bool`, `size_t`, `int64_t` or `float` declared as `kINT32` is reported, naming both types. A
    field built without data and completed by assignment (`PluginField f("a", nullptr, kFLOAT32, 5);
    f.data = arr;`) is judged at the assignment. A field a C++ lookup hands the project's own creator is not
    reported when every creator of that name reads it back as the very type it points to
    (`mode = *static_cast<const std::string*>(fields[i].data)`: both sides agree, in process), nor one that
    TensorRT's own creator does not declare (it never reads it: TRT103 reports that).

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
    reads = frozenset({"classes", "emissions", "files", "fn_contracts", "functions", "lifecycle", "lookups", "models",
                       "plugin_specs", "py_creators", "registrations", "route_calls", "route_tables"})
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
        # a route handing the project's own creator a std::string it reads back as one (`*static_cast<const
        # std::string*>(data)`): both sides agree on the object, whatever the declared type says
        {"files": {"plugins/interp.cpp": _CREATOR_READS % "*static_cast<std::string const*>(fc->fields[i].data)",
                   "convert/interp.cpp": _ROUTE}},
    ]
    VALID += [
        # a field TensorRT's own EfficientNMS_TRT creator does not declare: it never reads it (TRT103 says
        # so, one finding)
        {"files": {"convert/gelu.cpp": _ROUTE.replace('"Interp"', '"EfficientNMS_TRT"')}},
    ]
    INVALID += [
        {
            # ... but read as characters, as kCHAR says: the creator reads the std::string object's bytes
            "files": {"plugins/interp.cpp": _CREATOR_READS % "static_cast<char const*>(fc->fields[i].data)",
                      "convert/interp.cpp": _ROUTE},
            "expect": [("convert/interp.cpp", 9, "PluginField 'mode' is declared kCHAR (TensorRT reads 1-byte characters), "
                                                "but its data `&mode` points to std::basic_string<char>")],
        },
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
        agreed = _read_back(index)
        for md in index.lifecycle.values():
            for f in md.field_data:
                exp = _EXPECT.get(f.ftype or "")
                if exp is None or f.pointee_kind is None or f.pointee_size is None:
                    continue
                what, kinds, size = exp
                if f.pointee_kind in kinds and (size is None or f.pointee_size == size):
                    continue
                back = agreed.get((f.span.path, f.span.line, f.name))
                if back is _UNREAD or (f.pointee and back == _bare(f.pointee)):
                    continue  # every creator the route reaches reads the data back as this very type, or never
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


_UNREAD = object()  # a field the route's creator does not read at all


def _bare(t: str) -> str:
    return " ".join(t.replace("const ", "").replace("volatile ", "").split())


def _read_back(index) -> dict:
    """(path, line, field) of each field a C++ lookup hands the project's creators -> the type every one of those
    creators casts the field's data to a pointer to when it reads it (``*static_cast<const std::string*>(data)``),
    where they all read it so and agree: such a field is what both sides take it to be, whatever its declared
    ``PluginFieldType`` says (an in-process route to the project's own creator; TensorRT copies nothing)."""
    out: dict = {}
    from ..contract._routes import library_routes

    for r, _rel, fields, _note in library_routes(index):
        declared = {fd.name for fd in fields}
        for a in r.attrs:
            if a.name not in declared:  # TensorRT's own creator never reads it: TRT103's finding, not a width
                out[(a.span.path, a.span.line, a.name)] = _UNREAD
    for lk in index.lookups:
        if not lk.name or not getattr(lk, "attrs", ()):
            continue
        creators = index.creators_named(lk.name)
        if not creators:
            continue
        for a in lk.attrs:
            casts = [r.cast for c in creators for r in (getattr(c, "reads", ()) or ()) if r.name == a.name]
            if casts and all(casts) and len(set(casts)) == 1:
                out[(a.span.path, a.span.line, a.name)] = casts[0]
    return out
