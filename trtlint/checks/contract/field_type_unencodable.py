from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related
from trtlint.base.facts import PluginFieldDecl
from trtlint.index.project_index import is_test_path
from ..base import Rule
from ..examples.contract import backend_py, cpp_model, creator_cpp, gs_surgery_py, gs_var_py, onnxscript_py, py_lookup, py_lookup_v3, py_script
from ._routes import library_routes, requests, route_creators

# TensorRT's ONNX parser converts an attribute to a PluginField of a fixed type
ONNX_TO_FIELD = {"INT": "kINT32", "INTS": "kINT32", "FLOAT": "kFLOAT32", "FLOATS": "kFLOAT32", "STRING": "kCHAR"}
# a direct route encodes Python values by their numpy kind
ROUTE_TO_FIELD = {"INT": "kINT32", "INTS": "kINT32", "FLOAT": "kFLOAT32", "FLOATS": "kFLOAT32"}
# what to write on the route's side for a declared type the route can produce
_ONNX_OF = {"kINT32": "an INT (e.g. `axis=1`)", "kFLOAT32": "a FLOAT (e.g. `alpha=1.0`)", "kCHAR": "a STRING"}
_PY_OF = {"kINT32": "an int", "kFLOAT32": "a float (e.g. `1.0`, `float(x)`)"}
FIELD_TYPES = {"kFLOAT16", "kFLOAT32", "kFLOAT64", "kINT8", "kINT16", "kINT32", "kCHAR", "kDIMS", "kBF16", "kINT64",
               "kFP8", "kINT4", "kFP4", "kE8M0"}


# a creator that declares no field and reads them through a name -> pointer table: locals of type `t`, the table's
# mapped type `m`, the statement `store` that stores a field where the table's entry points
_MAP_CREATOR = """#include <NvInferRuntime.h>
#include <cstring>
#include <map>
#include <string>
using namespace nvinfer1;
class FooPluginCreator : public IPluginCreator
{{
public:
    char const* getPluginName() const noexcept override {{ return "FooPlugin"; }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
    IPluginV2* createPlugin(char const* name, PluginFieldCollection const* fc) noexcept override
    {{
        {t} maxBatch = 0;
        {t} imgSize = 0;
        std::map<std::string, {m}> name2ptr{{{{"max_batch", &maxBatch}}, {{"img_size", &imgSize}}}};
        for (int i = 0; i < fc->nbFields; i++)
        {{
            auto it = name2ptr.find(fc->fields[i].name);
            if (it != name2ptr.end())
            {{
                {store}
            }}
        }}
        return nullptr;
    }}
}};
REGISTER_TENSORRT_PLUGIN(FooPluginCreator);
"""

_STORE_INT = "*(it->second) = *static_cast<int const*>(fc->fields[i].data);"
_STORE_VOID = "std::memcpy(it->second, fc->fields[i].data, sizeof(int));"


class FieldTypeUnencodable(Rule):
    """A creator field whose `PluginFieldType` a route cannot produce.

    ## What it does
    For every attribute a route passes to a project creator, compares the `PluginFieldType` the creator
    declares for it (`getFieldNames()`) with the type the route can produce:
    - an ONNX node: TensorRT's ONNX parser converts each attribute to a fixed type (INT and INTS to
      `kINT32`, FLOAT and FLOATS to `kFLOAT32`, STRING to `kCHAR`), judged where trtlint knows the
      attribute's type (a literal, a name bound once to a literal or to a tuple or list of literals of one kind
      in its function or module and never rebound or changed in place, an annotated parameter, a `g.op`
      `_i`/`_f`/`_s` suffix);
    - a direct route: encodes only the profile's `encodable` types (TensorRT Edge-LLM: `kINT32` and
      `kFLOAT32`, chosen by the value's numpy kind);
    - C++ model code (`getPluginRegistry()->getPluginCreator(...)` and the `PluginField`s it builds for
      `createPlugin`, constructed or filled field by field): the `PluginFieldType` written for each field;
      Python model code the same (`get_plugin_registry().get_creator(...)` and the
      `trt.PluginField(name, data, trt.PluginFieldType.X)` it hands to `create_plugin`, the type positional or
      `type=`; a type held in a variable is not judged).

    An ONNX node (a model, onnx-graphsurgeon, an exporter) that asks for one of TensorRT's own plugins
    (`EfficientNMS_TRT`, ...) is judged the same way against the field types its creator declares in the
    plugin library of the release the code targets (`rules/tensorrt_plugin_fields.yaml`).

    In test files (docs/configuration.md) only the lookups are judged: a test that looks a creator of the project up
    in the registry and hands `create_plugin` a field of the wrong type calls the real creator with it (an ONNX node
    or a direct-route call there may be a stub's fake op, and is not judged).

    A field the creator declares by its name only (`PluginField("mode")`: TensorRT's defaults, no data and
    `kUNKNOWN`) states no type: it is never compared (its type is unknown, not a mismatch).

    A field the creator does not declare with a type is compared with the type `createPlugin` reads it as, where
    that is known: a key of a name -> pointer table (`std::map<std::string, int*> t{{"max_batch", &maxBatch}}` and
    `t.find(fc->fields[i].name)`) is read as the scalar the table's entries point to (`int` -> `kINT32`, `float`
    -> `kFLOAT32`, `int64_t` -> `kINT64`, `double` -> `kFLOAT64`); a table of `void*`, of pointers to `bool`, `char`
    or a 2-byte float, or of anything else says nothing of the type, and a name the creator's files read elsewhere
    without a type, or as another type, is not compared.

    ## Why it matters
    The creator reads `fields[i].data` as the type it declared. A field declared `kFLOAT16` or `kINT64`
    that arrives as `kINT32`, or a float that arrives as an int, is read as garbage bits, or rejected at
    engine build, on a GPU machine. A type the direct route cannot encode makes the operation unusable
    through that route.

    ## Example
    ```cpp
    mFields.emplace_back(PluginField("axis", nullptr, PluginFieldType::kINT64, 1));
    ```
    ```python
    _plugins.FooPlugin(x, axis=1)   # the ONNX parser passes 'axis' as kINT32
    ```

    ## Fix
    Declare (and read) the type the route produces (`kINT32`, `kFLOAT32`), or convert in the route.
    """

    code = "TRT105"
    reads = frozenset({"classes", "emissions", "files", "fn_contracts", "functions", "lookups", "models",
                        "plugin_specs", "py_creators", "py_functions", "registrations", "route_calls",
                        "route_tables", "torch_stubs", "translation_entries", "unresolved_classes"})
    name = "field-type-unencodable"
    family = "contract"
    # judges test files itself (docs/configuration.md): a test's ONNX node or direct-route call (a stub, a fake op) is
    # not a route, but a test that looks a creator of the project up by name and hands it PluginFields of a written
    # type calls that creator's createPlugin with them
    applies_to_tests = True

    VALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", "kFLOAT32"), ("axis", "kINT32"))),
                "py/translate.py": onnxscript_py("FooPlugin", "alpha=1.0, axis=2"),
                "builder/backend.py": backend_py(),
                "builder/functional.py": (
                    "from .ops import operation\n"
                    "def foo(x):\n"
                    '    return operation("foo", [x], alpha=0.5, axis=1)\n'
                ),
            }
        },
        {
            # fields declared by their name only (`PluginField("alpha")`: no type, TensorRT's kUNKNOWN): their type
            # is unknown, never a mismatch, whatever an ONNX node, the direct route or C++ model code passes
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", None), ("axis", None))),
                "py/translate.py": onnxscript_py("FooPlugin", "alpha=1, axis=2.0"),
                "builder/backend.py": backend_py(),
                "builder/functional.py": (
                    "from .ops import operation\n"
                    "def foo(x):\n"
                    '    return operation("foo", [x], alpha=1, axis=0.5)\n'
                ),
                "src/model.cpp": cpp_model("FooPlugin", ftype="kFLOAT16"),
                "py/build.py": py_lookup("FooPlugin", fields=(("alpha", "INT32"), ("axis", "FLOAT16"))),
            }
        },
        {
            # Python model code writing the declared types (`type=` or positional), an attribute bound once to a tuple
            # of ints where the creator declares kINT32
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", "kFLOAT32"), ("pads", "kINT32"))),
                "py/build.py": py_lookup("FooPlugin", fields=(("alpha", "FLOAT32"),), keyword=True),
                "py/build2.py": py_lookup("FooPlugin", fields=(("alpha", "FLOAT32"), ("pads", "INT32"))),
                "py/surgeon.py": gs_var_py("FooPlugin", "(1, 1, 1, 1)"),
            }
        },
        {
            # a variable rebound, changed in place, or of mixed kinds: its type is not known, never a mismatch
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("pads", "kFLOAT32"),)),
                "py/a.py": gs_var_py("FooPlugin", "(1, 1)", extra="pads = (0.5, 0.5)"),
                "py/b.py": gs_var_py("FooPlugin", "[1, 1]", extra="pads.append(2)"),
                "py/c.py": gs_var_py("FooPlugin", "(1, 0.5)"),
                "py/d.py": gs_var_py("FooPlugin", "(1, 1)", extra="if x:\n        pads = (0.5, 0.5)"),
            }
        },
    ]
    INVALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", "kFLOAT32"), ("axis", "kINT64"))),
                "py/translate.py": onnxscript_py("FooPlugin", "alpha=1, axis=2"),
            },
            "expect": [
                ("py/translate.py", 7, "attribute 'alpha' of ONNX node 'trt_edgellm::FooPlugin' is an INT, which TensorRT's ONNX parser passes as kINT32, but creator FooPluginCreator declares 'alpha' as kFLOAT32: the plugin reads the wrong type; fix the node: write 'alpha' as a FLOAT (e.g. `alpha=1.0`)"),
                ("py/translate.py", 7, "attribute 'axis' of ONNX node 'trt_edgellm::FooPlugin' is an INT, which TensorRT's ONNX parser passes as kINT32, but creator FooPluginCreator declares 'axis' as kINT64: the plugin reads the wrong type; fix the creator: the ONNX parser never passes kINT64, so declare 'axis' as kINT32"),
            ],
        },
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", "kFLOAT16"),)),
                "builder/backend.py": backend_py(),
                "builder/functional.py": (
                    "from .ops import operation\n"
                    "def foo(x, alpha):\n"
                    '    return operation("foo", [x], alpha=alpha)\n'
                ),
            },
            "expect": [
                ("builder/functional.py", 3, "creator FooPluginCreator declares 'alpha' as kFLOAT16, which the direct route cannot encode (it encodes kINT32, kFLOAT32); fix the creator (declare and read one of those types) or teach the route's encoder kFLOAT16"),
            ],
        },
        {
            # C++ model code: the PluginFieldType written where the field is built
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "src/model.cpp": cpp_model("FooPlugin", ftype="kFLOAT16"),
            },
            "expect": [("src/model.cpp", 6, "field 'alpha' passed to getCreator(\"FooPlugin\", \"1\", \"\") is built as kFLOAT16, but creator FooPluginCreator declares 'alpha' as kFLOAT32 in getFieldNames(): the two disagree, so either createPlugin reads this field as the wrong type or every route that trusts the declaration does; fix this side (build it as kFLOAT32) unless createPlugin reads it as kFLOAT16")],
        },
        {
            # two sites building the field the same way disagree with the declaration once: one finding
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "src/model.cpp": cpp_model("FooPlugin", ftype="kFLOAT16"),
                "src/model2.cpp": cpp_model("FooPlugin", ftype="kFLOAT16").replace("makeFoo", "makeFoo2"),
            },
            "expect": [("src/model.cpp", 6, "field 'alpha' passed to getCreator(\"FooPlugin\", \"1\", \"\") is built as "
                        "kFLOAT16 (and at 1 more site built the same way), but creator FooPluginCreator declares 'alpha' as kFLOAT32")],
        },
    ]

    VALID += [
        {
            # a creator that declares no field reads them through a `std::map<std::string, int*>`: each key is read as
            # kINT32, which the route builds; a `void*` table says nothing of the type, whatever the route builds
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": _MAP_CREATOR.format(t="int", m="int*", store=_STORE_INT),
                "py/build.py": py_lookup("FooPlugin", fields=(("max_batch", "INT32"), ("img_size", "INT32"))),
                "cpp/plugins/bar/barPlugin.cpp": _MAP_CREATOR.format(t="int", m="void*", store=_STORE_VOID).replace("Foo", "Bar"),
                "py/build_bar.py": py_lookup("BarPlugin", fields=(("max_batch", "FLOAT32"),)),
            }
        },
    ]
    INVALID += [
        {
            # the same creator: the route builds 'max_batch' as kFLOAT32, which createPlugin stores through an int*
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": _MAP_CREATOR.format(t="int", m="int*", store=_STORE_INT),
                "py/build.py": py_lookup("FooPlugin", fields=(("max_batch", "FLOAT32"), ("img_size", "INT32"))),
            },
            "expect": [("py/build.py", 8, "field 'max_batch' passed to get_creator('FooPlugin', '1', '') is built as "
                        "kFLOAT32, but creator FooPluginCreator reads 'max_batch' as kINT32 in createPlugin() (it stores "
                        "the field through a table of pointers to that type): the plugin reads the wrong type; fix this "
                        "side (build it as kINT32)")],
        },
    ]

    VALID += [
        # TensorRT's own plugin: every attribute of the type its creator declares (a bool is an INT to onnx)
        {"files": {"py/surgeon.py": gs_surgery_py("EfficientNMS_TRT", attrs='{"score_threshold": 0.25, "iou_threshold": 0.45, "max_output_boxes": 100, "background_class": -1, "score_activation": False, "box_coding": 0}')}},
    ]
    VALID += [
        {
            # a test creating a V3 plugin from the project's creator with the declared type (a variable-held PluginField
            # with `type=`, its collection in a variable, create_plugin(name=, field_collection=, phase=)); an ONNX
            # node of a test (a stub's fake op, maybe) is not judged, whatever its attribute's type
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("axis", "kINT32"), ("pads", "kFLOAT32"))),
                "samples/foo/test_foo_plugin.py": py_lookup_v3("FooPlugin", "axis", "INT32"),
                "tests/test_surgery.py": gs_var_py("FooPlugin", "(1, 1, 1, 1)"),
            }
        },
    ]
    INVALID += [
        {
            # the same creation with a type the creator does not declare, in a test file (a `test_*.py` script, a file
            # under tests/) as in model code: the test hands the project's real creator a float for an int field
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("axis", "kINT32"),)),
                "samples/foo/test_foo_plugin.py": py_lookup_v3("FooPlugin", "axis", "FLOAT32"),
                "tests/build/make_foo.py": py_lookup_v3("FooPlugin", "axis", "FLOAT16"),
            },
            "expect": [
                ("samples/foo/test_foo_plugin.py", 9, "field 'axis' passed to get_creator('FooPlugin', '1', '') is built "
                 "as kFLOAT32, but creator FooPluginCreator declares 'axis' as kINT32 in getFieldNames()"),
                ("tests/build/make_foo.py", 9, "field 'axis' passed to get_creator('FooPlugin', '1', '') is built "
                 "as kFLOAT16, but creator FooPluginCreator declares 'axis' as kINT32 in getFieldNames()"),
            ],
        },
        {
            # Python model code: the PluginFieldType written in trt.PluginField(name, data, type), positional or `type=`
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", "kFLOAT32"), ("axis", "kINT32"))),
                "py/build.py": py_lookup("FooPlugin", fields=(("alpha", "INT32"), ("axis", "INT32"))),
                "py/build2.py": py_lookup("FooPlugin", fields=(("axis", "FLOAT32"),), keyword=True),
            },
            "expect": [
                ("py/build.py", 8, "field 'alpha' passed to get_creator('FooPlugin', '1', '') is built as kINT32, but "
                 "creator FooPluginCreator declares 'alpha' as kFLOAT32 in getFieldNames()"),
                ("py/build2.py", 8, "field 'axis' passed to get_creator('FooPlugin', '1', '') is built as kFLOAT32, but "
                 "creator FooPluginCreator declares 'axis' as kINT32 in getFieldNames()"),
            ],
        },
        {
            # an ONNX attribute whose value is a local variable bound once to a tuple of int literals: INTS (kINT32)
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("pads", "kFLOAT32"),)),
                "py/surgeon.py": gs_var_py("FooPlugin", "(1, 1, 1, 1)"),
            },
            "expect": [
                ("py/surgeon.py", 6, "attribute 'pads' of ONNX node 'FooPlugin' is an INTS, which TensorRT's ONNX parser "
                 "passes as kINT32, but creator FooPluginCreator declares 'pads' as kFLOAT32"),
            ],
        },
        {
            # self-contained scripts side by side, each with its own creator of one name: a route is judged against
            # the creator of its own file
            "files": {
                "samples/a_cupy.py": py_script("FooPlugin", "INT32"),
                "samples/b_torch.py": py_script("FooPlugin", "FLOAT32"),
                "samples/c_numba.py": py_script("FooPlugin", "INT32"),
            },
            "expect": [
                ("samples/b_torch.py", 17, "attribute 'pads' of ONNX node 'FooPlugin' is an INTS, which TensorRT's ONNX "
                 "parser passes as kINT32, but creator FooCreator declares 'pads' as kFLOAT32"),
            ],
        },
        {
            # TensorRT's own plugin (no creator in the project): a FLOAT where libnvinfer_plugin's creator declares
            # kINT32 is read as the bits of a float
            "files": {"py/surgeon.py": gs_surgery_py("EfficientNMS_TRT", attrs='{"score_threshold": 0.25, "iou_threshold": 0.45, "max_output_boxes": 0.5, "background_class": -1, "score_activation": 0, "box_coding": 0}')},
            "expect": [("py/surgeon.py", 6, "attribute 'max_output_boxes' of ONNX node 'EfficientNMS_TRT' is a FLOAT, which TensorRT's ONNX parser passes as kFLOAT32, but TensorRT's own EfficientNMS_TRT creator declares 'max_output_boxes' as kINT32 (libnvinfer_plugin 11.1; no TensorRT version is known, so judged against the newest release here): the plugin reads the wrong type; fix the node: write 'max_output_boxes' as an INT (e.g. `axis=1`)")],
        },
        {
            # a direct route: the value's kind decides the encoded type; the declaration is encodable, so the call is
            # the side to fix
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", "kFLOAT32"),)),
                "builder/backend.py": backend_py(),
                "builder/functional.py": (
                    "from .ops import operation\n"
                    "def foo(x):\n"
                    '    return operation("foo", [x], alpha=1)\n'
                ),
            },
            "expect": [("builder/functional.py", 3, "which the direct route encodes as kINT32, but creator FooPluginCreator "
                        "declares 'alpha' as kFLOAT32; fix the call: pass 'alpha' as a float")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        yield from self._project(index)
        yield from self._external(index)

    def _external(self, index) -> Iterable[Diagnostic]:
        """ONNX nodes asking for TensorRT's own plugins (a name the rules/ packs list, no project creator of it):
        each attribute's type compared with the field type libnvinfer_plugin's creator declares in the release the
        code targets (rules/tensorrt_plugin_fields.yaml; the newest release there when no version is known)."""
        for r, rel, fields, note in library_routes(index):
            if r.kind != "onnx":
                continue
            declared = {f.name: f.type for f in fields if f.type in FIELD_TYPES}
            for a in r.attrs:
                if is_test_path(a.span.path):
                    continue  # a test's node: maybe a fake op, not a route
                want = declared.get(a.name)
                got = ONNX_TO_FIELD.get(a.type or "")
                if want is None or got is None or got == want:
                    continue
                article = "an" if (a.type or "")[:1] in "AEIOU" else "a"
                yield self.diag(
                    a.span,
                    f"attribute '{a.name}' of {r.what} is {article} {a.type}, which TensorRT's ONNX parser passes as "
                    f"{got}, but TensorRT's own {r.name} creator declares '{a.name}' as {want} (libnvinfer_plugin "
                    f"{rel}{note}): the plugin reads the wrong type; "
                    + (f"fix the node: write '{a.name}' as {_ONNX_OF[want]}" if want in _ONNX_OF else
                       f"the ONNX parser never passes {want}: create this plugin through the TensorRT API instead"),
                    symbol=f"{r.name}.{a.name}",
                    logical=r.logical,
                )

    def _project(self, index) -> Iterable[Diagnostic]:
        dr = index.profile.direct_route or {}
        encodable = tuple(dr.get("encodable") or ("kINT32", "kFLOAT32"))
        # C++ model code that builds one field with one type at several sites disagrees with the declaration once:
        # one finding at the first site, the others related (the declaration, or every site, is what to change)
        lookups: dict[tuple, list] = {}
        for r in requests(index):
            if not r.attrs or r.kind not in ("onnx", "route-call", "lookup"):
                continue
            creators = route_creators(index, r)
            declared: dict[str, tuple] = {}
            for c in creators:
                for f in c.fields:
                    if f.type in FIELD_TYPES:
                        declared.setdefault(f.name, (c, f, None))
            for c in creators:
                for name, (f, rd) in _read_types(c).items():
                    declared.setdefault(name, (c, f, rd))
            for a in r.attrs:
                hit = declared.get(a.name)
                if hit is None:
                    continue
                c, f, rd = hit
                # what the creator says: its declaration, or (a field it declares with no type) how createPlugin reads it
                says = (f"declares '{f.name}' as {f.type}" if rd is None else
                        f"reads '{f.name}' as {f.type} in {rd.method}() (a table of pointers to that type)")
                related = [Related(f.span, f"{c.cls.name} {'declares' if rd is None else 'reads'} '{f.name}' as {f.type} here")]
                if r.kind == "lookup":
                    # C++ model code builds the PluginField itself: its PluginFieldType is written
                    if a.type not in FIELD_TYPES or a.type == f.type:
                        continue
                    lookups.setdefault((c.qualname, f.name, a.type), []).append((r, a, c, f, rd, related))
                    continue
                if is_test_path(a.span.path):
                    continue  # a test's ONNX node or direct-route call: maybe a stub's fake op, not a route
                elif r.kind == "onnx":
                    got = ONNX_TO_FIELD.get(a.type or "")
                    if got is None or got == f.type:
                        continue
                    msg = (
                        f"attribute '{a.name}' of {r.what} is an {a.type}, which TensorRT's ONNX parser passes as {got}, "
                        f"but creator {c.cls.name} {says}: the plugin reads the wrong type; "
                        + (f"fix the node: write '{a.name}' as {_ONNX_OF[f.type]}"
                           if f.type in _ONNX_OF else
                           f"fix the creator: the ONNX parser never passes {f.type}, so declare '{f.name}' as {got} "
                           f"and read it as that type")
                    )
                else:
                    if f.type not in encodable:
                        msg = (
                            f"attribute '{a.name}' of {r.what}: creator {c.cls.name} {says}, "
                            f"which the direct route cannot encode (it encodes {', '.join(encodable)}); fix the creator "
                            f"(declare and read one of those types) or teach the route's encoder {f.type}"
                        )
                    else:
                        got = ROUTE_TO_FIELD.get(a.type or "")
                        if a.type == "STRING":
                            got = "nothing (a string is rejected)"
                        if got is None or got == f.type:
                            continue
                        msg = (
                            f"attribute '{a.name}' of {r.what} is an {a.type}, which the direct route encodes as {got}, "
                            f"but creator {c.cls.name} {says}; fix the call: pass "
                            f"'{a.name}' as {_PY_OF.get(f.type, f.type)}"
                        )
                yield self.diag(a.span, msg, related=related, symbol=f"{r.name}.{a.name}")
        for hits in lookups.values():
            hits.sort(key=lambda h: is_test_path(h[1].span.path))  # located at model code rather than at a test's
            r, a, c, f, rd, related = hits[0]
            more = hits[1:]
            also = (f" (and at {len(more)} more site{'s' if len(more) != 1 else ''} built the same way)" if more else "")
            if rd is None:
                msg = (f"field '{a.name}' passed to {r.what} is built as {a.type}{also}, but creator {c.cls.name} "
                       f"declares '{f.name}' as {f.type} in getFieldNames(): the two disagree, so either createPlugin "
                       "reads this field as the wrong type or every route that trusts the declaration does; fix this "
                       f"side (build it as {f.type}) unless createPlugin reads it as {a.type}, then fix the declaration")
            else:
                msg = (f"field '{a.name}' passed to {r.what} is built as {a.type}{also}, but creator {c.cls.name} "
                       f"reads '{f.name}' as {f.type} in {rd.method}() (it stores the field through a table of "
                       f"pointers to that type): the plugin reads the wrong type; fix this side (build it as {f.type})")
            yield self.diag(
                a.span,
                msg,
                related=related + [Related(a2.span, f"'{a2.name}' is built as {a2.type} here too ({r2.what})")
                                   for r2, a2, _c, _f, _rd, _rel in more],
                symbol=f"{r.name}.{a.name}",
            )


def _read_types(c) -> dict[str, tuple]:
    """The fields a creator reads as one known type (``FieldRead.type``: a key of a name -> pointer table) and does
    not declare with a type: name -> (a PluginFieldDecl standing for the read, the FieldRead). A name read elsewhere
    in the creator's files without a type, or as another type (another creator of the file), decides nothing."""
    typed = {f.name for f in c.fields if f.type in FIELD_TYPES}
    seen: dict[str, list] = {}
    for rd in c.reads:
        if rd.name not in typed:
            seen.setdefault(rd.name, []).append(rd)
    out = {}
    for name, rds in seen.items():
        types = {rd.type for rd in rds}
        if len(types) == 1 and rds[0].type in FIELD_TYPES:
            rd = rds[0]
            out[name] = (PluginFieldDecl(name=name, type=rd.type, length=None, span=rd.span), rd)
    return out
