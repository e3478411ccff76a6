from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule
from ..examples.plugin import plugin_class

_GFS = """    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {{
{pre}        mData.clear();
        mData.emplace_back("alpha", {data}, PluginFieldType::kFLOAT32, 1);
        mData.emplace_back("name", {name}, PluginFieldType::kCHAR, 4);
        mFC.nbFields = static_cast<int32_t>(mData.size());
        mFC.fields = mData.data();
        return &mFC;
    }}
    float mAlpha{{}};
    std::string mName;
    std::vector<PluginField> mData;
    PluginFieldCollection mFC{{}};"""



class DanglingPluginField(Rule):
    """`PluginField.data` points to a local variable, a by-value parameter or a temporary that dies first.

    ## What it does
    For every `PluginField` whose data points into a function's local variable or by-value parameter, reports
    it when the field outlives the function: it is stored in a member or static container (the collection
    `getFieldsToSerialize` / `getFieldNames` hands TensorRT). A field whose data is `x.c_str()` / `x.data()`
    of a temporary (`std::to_string(n).c_str()`) is reported wherever the field is stored, since the
    temporary dies at the end of the statement.

    ## Why it matters
    TensorRT reads the collection after the function has returned: from `getFieldsToSerialize` when it
    writes the engine. By then the local's stack slot holds something else, so the engine stores garbage for
    that field, and only the deserialized plugin (often on another machine) shows it.

    ## Example
    ```cpp
    float alpha = mAlpha * 2;
    mData.emplace_back("alpha", &alpha, PluginFieldType::kFLOAT32, 1);   // dangles after return
    ```

    ## Fix
    Point the field at a member that lives as long as the plugin (`&mAlpha`, `mName.c_str()`); keep derived
    values in members of their own.
    """

    code = "TRT209"
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "lifecycle", "py_creators", "registrations"})
    name = "dangling-plugin-field"
    family = "plugin"

    VALID = [
        {"files": {"plugins/foo.cpp": plugin_class(_GFS.format(pre="", data="&mAlpha", name="mName.c_str()"))}},
    ]
    INVALID = [
        {
            "files": {
                "plugins/foo.cpp": plugin_class(
                    _GFS.format(pre="        float alpha = mAlpha * 2.F;\n", data="&alpha", name="mName.c_str()")
                )
            },
            "expect": [("plugins/foo.cpp", 12, "PluginField 'alpha' points to local `alpha` of FooPlugin::getFieldsToSerialize, but the field is kept in a member container that TensorRT reads after the function returns: the pointer dangles")],
        },
        {
            "files": {
                "plugins/foo.cpp": plugin_class(
                    _GFS.format(pre="", data="&mAlpha", name="std::string(\"abcd\").c_str()")
                )
            },
            "expect": [("plugins/foo.cpp", 12, "PluginField 'name' points into the temporary `std::string(\"abcd\")`, which is destroyed at the end of the statement")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        seen = set()
        for md in index.lifecycle.values():
            owner = md.qualname
            for f in md.field_data:
                key = (f.span.path, f.span.line, f.span.col)
                if key in seen:
                    continue
                rel = [Related(f.var_span, f"`{f.var}` is declared here")] if f.var_span and f.var else []
                if f.storage == "temporary" and f.container is not None:
                    seen.add(key)
                    yield self.diag(
                        f.span,
                        f"PluginField '{f.name}' points into the temporary `{f.var}`, which is destroyed at the end of "
                        f"the statement; the field is kept in {'a' if f.container != 'local' else 'a local'} container "
                        "and read later: the pointer dangles",
                        symbol=f"{owner}:{f.name}",
                    )
                elif f.storage in ("local", "param") and (f.container in ("member", "static")):
                    seen.add(key)
                    what = "local" if f.storage == "local" else "by-value parameter"
                    yield self.diag(
                        f.span,
                        f"PluginField '{f.name}' points to {what} `{f.var}` of {owner}, but the field is kept in a "
                        f"{f.container} container that TensorRT reads after the function returns: the pointer dangles",
                        related=rel,
                        symbol=f"{owner}:{f.name}",
                    )
