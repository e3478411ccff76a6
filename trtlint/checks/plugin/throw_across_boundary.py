from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from ..base import Rule
from ..examples.contract import pair_cpp
from ..examples.hotpath import plugin_cpp
from ..examples.plugin import after_switch, exits_plugin, fail_helper_files, own_request as _own_request
from ..hotpath._walk import short
from ._escape import chain_text, escapes_by_method

_CHECK = """#include <stdexcept>
#define ELLM_CHECK(cond, msg) do { if (!(cond)) { throw std::runtime_error(msg); } } while (0)
static void checkShape(int n)
{
    ELLM_CHECK(n > 0, "empty input");
}"""

# a rethrow in a catch-all around calls that never throw (a formatting helper): nothing can reach the `throw;`
_RETHROW_DEAD = """#include <cstdarg>
#include <cstdio>
#include <string>
static std::string fmt(char const* f, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, f);
    try
    {
        std::vsnprintf(buf, sizeof(buf), f, ap);
    }
    catch (...)
    {
        va_end(ap);
        throw;
    }
    va_end(ap);
    return buf;
}"""

# a data-type dispatch: the branch for a type the plugin never accepted (supportsFormatCombination) does not run
_DTYPE_DISPATCH = """#include <NvInferRuntime.h>
#include <stdexcept>
static size_t elementSize(nvinfer1::DataType t)
{
    switch (t)
    {
    case nvinfer1::DataType::kFLOAT: return 4;
    case nvinfer1::DataType::kHALF: return 2;
    default: throw std::runtime_error("unsupported type");
    }
}
static void launch(nvinfer1::DataType t)
{
    if (t == nvinfer1::DataType::kFLOAT)
    {
        return;
    }
    else if (t == nvinfer1::DataType::kHALF)
    {
        return;
    }
    else
    {
        throw std::runtime_error("only float and half");
    }
}"""

# a switch on another enum that maps to data types is no data-type dispatch: a creator handed an unknown field
# type reaches its default
_FIELD_TYPE_MAP = """#include <NvInferRuntime.h>
#include <stdexcept>
static nvinfer1::DataType toDataType(nvinfer1::PluginFieldType t)
{
    switch (t)
    {
    case nvinfer1::PluginFieldType::kFLOAT32: return nvinfer1::DataType::kFLOAT;
    case nvinfer1::PluginFieldType::kFLOAT16: return nvinfer1::DataType::kHALF;
    default: throw std::invalid_argument("unsupported field type");
    }
}"""

# the same rethrow around a helper that throws: the exception leaves the helper's caller through it
_RETHROW_LIVE = _CHECK + """
static void checked(int n)
{
    try
    {
        checkShape(n);
    }
    catch (...)
    {
        throw;
    }
}"""

# every branch of the switch returns: the throw after it never runs; with a `break` it does
_RAISE = 'throw std::runtime_error("unsupported");'
_SIZES = "    unsigned n = elementSize(inputDesc[0].type) + tile(gTactic);"
_NESTED_BREAK = "if (gFast)\n        {\n            break;\n        }\n        return 2;"

_EXHAUSTIVE = """#include <stdexcept>
static unsigned elementSize(int t)
{
    switch (t)
    {
    case 0: return 4;
    case 1:
    case 2: return 2;
    default: return 0;
    }
    throw std::runtime_error("invalid type");
}"""

# a check of enqueue's own pointer parameters: only a null argument fails it, and TensorRT passes the tensors' descriptors
# and memory non-null; its workspace may be null (no workspace asked for), and a helper's or a member's null is the
# plugin's own
_VALIDATE = """#include <stdexcept>
#define PLUGIN_VALIDATE(c) do { if (!(c)) { throw std::invalid_argument(#c); } } while (0)"""
_NULL_ARGS = """    PLUGIN_VALIDATE(inputDesc != nullptr && inputs != nullptr && outputs != nullptr);
    if (outputDesc == nullptr || !inputs)
    {
        throw std::invalid_argument("null tensors");
    }"""
_NULL_OWN = _VALIDATE + """
static float* gBuf = nullptr;
static void fill(float* p)
{
    if (p == nullptr)
    {
        throw std::invalid_argument("no buffer");
    }
}"""

# a bounds-checked accessor: its throw runs only on an index out of range, a program error as a failed assert
_ACCESSOR = """#include <stdexcept>
struct Coords4
{
    long d[4];
    int n;
    long operator[](int idx) const
    {
        if (idx < 0 || idx >= n)
        {
            throw std::out_of_range("index");
        }
        return d[idx];
    }
};"""

# a lookup by a name that runtime data decides (a model's attribute) throws out_of_range on a miss: it counts,
# and so does a limit on a count that throws something else
_ATTR_LOOKUP = """#include <map>
#include <stdexcept>
#include <string>
static std::map<std::string, int> gAttrs;
static int attr(std::string const& key)
{
    auto it = gAttrs.find(key);
    if (it == gAttrs.end())
    {
        throw std::out_of_range("attribute not found: " + key);
    }
    return it->second;
}
static void setBatch(int batch)
{
    if (batch > 64)
    {
        throw std::runtime_error("batch too large");
    }
}"""

# maps given a key before it is looked up: insert of a pair (make_pair, braces), emplace, operator[]
_NAMES = """#include <unordered_map>
static std::map<int, std::string> gNames;
static std::unordered_map<int, int> gIds;"""
_GIVEN_KEY = """    int level = inputDesc[0].dims.nbDims;
    gNames.insert(std::make_pair(level, std::string("a")));
    std::string const& n = gNames.at(level);
    gNames.insert({level + 1, n});
    std::string const& m = gNames.at(level + 1);
    gIds.emplace(2, 7);
    gIds[3] = gIds.at(2);
    int last = gIds.at(3);"""

_TRY = """    try
    {
        checkShape(1);
    }
    catch (std::exception const& e)
    {
        return -1;
    }"""


# enqueue calls another noexcept interface method that throws: nothing leaves initialize (std::terminate runs at its
# boundary), so its sites are its own finding, not enqueue's too
def _calls_initialize(initialize_head: str = "") -> str:
    return plugin_cpp("    initialize();", _CHECK).replace(
        "cudaStream_t stream) noexcept override;",
        f"cudaStream_t stream) noexcept override;\n{initialize_head}    int32_t initialize() noexcept override\n"
        "    {\n        checkShape(3);\n        return 0;\n    }", 1)


# a noexcept helper (no interface method) that throws: it terminates at its own boundary, whatever a caller catches
_NOEXCEPT_HELPER = _CHECK + """
static void checkedNoexcept(int n) noexcept
{
    checkShape(n);
}
static void viaHelper(int n)
{
    checkedNoexcept(n);
}"""


# a cub-style helper: called with a null workspace it returns the size it needs before it carves (and may throw);
# getWorkspaceSize calls it so, enqueue with its workspace (line 34)
_SIZE_QUERY = """#include <NvInferRuntime.h>
#include <cuda_runtime.h>
#include <stdexcept>
#include <cstdint>
using namespace nvinfer1;
inline void* carve(size_t n, void*& ws, size_t& left)
{
    if (n > left)
    {
        throw std::runtime_error("workspace too small");
    }
    left -= n;
    void* p = ws;
    ws = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(ws) + n);
    return p;
}
int run(int n, void* workspace, size_t size, cudaStream_t stream)
{
    if (!workspace || !size)
    {
        return n * 4;
    }
    void* a = carve(n * 4, workspace, size);
    return a != nullptr ? 0 : 1;
}
class FooPlugin : public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime
{
public:
    size_t getWorkspaceSize(DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
        DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override
    {
        return run(16, nullptr, 0, nullptr);
    }
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        return run(16, workspace, 64, stream);
    }
};
"""

class ThrowAcrossBoundary(Rule):
    """A throw that can leave a `noexcept` TensorRT interface method.

    ## What it does
    Follows the call graph from every `noexcept` method of a plugin or creator class (and their
    destructors) into project functions and macros, and reports what can throw on the way when no enclosing
    `try` block catches it: a `throw` expression, a throwing check macro (`ELLM_CHECK`, `CUDA_CHECK`,
    `PLUGIN_VALIDATE`, `PLUGIN_CUASSERT`, ...), a throwing library call (`.at()`, `std::stoi`,
    `std::optional::value`) or a project function listed as throwing. A `try` at any level above the throw
    (in the interface method itself or in any function on the way) clears it. A bare rethrow (`throw;` in a
    handler) counts only when its function's try blocks can throw (a throw, a throwing macro or API, or a call
    into a project function): `catch (...) { cleanup; throw; }` around calls that never throw is not a site.
    Nor is a throw in the branch of a data-type dispatch for no accepted type (the last `else` of an if-chain
    on `DataType::k...` when it fails (a throw, a return, an exit), the `default:` of a switch on a `DataType`),
    reached from a plugin method: TensorRT hands a plugin only the types its `supportsFormatCombination`
    accepted; nor one in the `default:` of a switch whose cases name every enumerator of its enum, which only a value
    the plugin made invalid reaches. A switch with no `default:` every case of which leaves the function (returns or
    throws, with no `break` out of it, in an `if` either) is followed only by the values no case names: the code after
    it is its default (`switch (t) { case DataType::kFLOAT: return 4; ... } throw ...;`; on a data type, when that
    code ends in a failure). (A creator's types come from the model's fields or the blob: its dispatch's
    last branch, and such a default, count.) Nor is a map's `.at(k)` after a membership test of the same key in the same function (`m.count(k) ?
    m.at(k) : d`, `if (m.find(k) != m.end())`, `CHECK(isExist(k))`), or after the key was given to a map of the
    same type (`m.insert(std::make_pair(k, v))`, `m.insert({k, v})`, `m.emplace(k, v)`, `m[k] = v`) with no `erase`
    or `clear` of that map type in between: the key is there whether or not the insertion took place. Nor is a throw only an index out of range
    raises: a sequence's `at(i)` (`std::vector`, `std::array`, `std::string`, `std::deque`; `index_check` in the
    packs) and a project's bounds-checked accessor (`if (idx < 0 || idx >= n) throw std::out_of_range(...)` on an
    integer parameter of its own). The standard calls that a logic error: a program error, as a failed assert is
    (TRT205 reports no invariant assert either), not a failure a runtime input or status decides. A map's `at(k)`
    and an `out_of_range` thrown on a missing key still count. Nor is a throw only a null argument TensorRT never
    passes raises: a check of the interface method's own pointer parameters (`PLUGIN_VALIDATE(inputs != nullptr &&
    outputs != nullptr)` in `enqueue`, `if (!libNamespace) throw ...;` in `setPluginNamespace`) when every parameter
    tested is one TensorRT supplies non-null (`nonnull` in rules/tensorrt_interfaces.yaml: enqueue's tensor
    descriptors and arrays, the namespace string): an argument precondition, a caller's bug. A test of enqueue's
    workspace (null when the plugin asks for none), of a member, of an element, or of a helper's parameter (the
    plugin passes it what it has) still counts. Nor is a throw after a switch with a `default:` every
    branch of which returns or throws: no path reaches it. Nor is a throw that does not run in the context a method
    calls it in, judged as the hot-path rules judge it: a cub-style helper that returns the size it needs when its
    workspace pointer is null (`if (!workspace || !size) return bytes;`) and only then carves the workspace (with a
    check that throws) throws nothing when `getWorkspaceSize` calls it with `nullptr` to learn the size; it still
    counts from `enqueue`, which hands it the workspace. Nor is a throw that checks the plugin's own workspace
    request: `if (size > workspace_size) throw ...;` in a carver whose integer parameter `workspace_size` is neither
    written nor handed to a call before the test, where, on every call below `enqueue` that reaches the carver, that
    parameter is, hop by hop, the caller's same parameter passed on as its plain name (written nowhere but in a
    cub-style size query's branch that returns first, handed to no other callee before the hop or in a loop around
    it) and, at `enqueue`, a call of the plugin's own `getWorkspaceSize(...)`: TensorRT hands `enqueue` a workspace at
    least that large, so a carve exceeding it is a bug in the plugin's size arithmetic, an invariant, not a run-time
    failure. A member, a literal or a computed size at `enqueue`, a hop passing anything but the plain parameter, a
    test on something else, or the same throw reached from another method keeps the finding (for that method).
    One finding per root cause: per interface method, at its definition, every throw site below it as a related
    location; but the throw sites of a helper that three or more interface methods reach are one finding of their
    own, at the helper's first site, naming the methods (catch it once in the helper, or in each method). Which macros and functions
    throw is data: the `macros` and `functions` tables of the rules/ packs (`rules/cpp_behaviour.yaml`, with
    the TensorRT Edge-LLM and TensorRT OSS check macros); add your own with `rule-packs`. A throw expanded from
    a macro the packs do not know is reported at the macro's use, naming it. The project's own definition wins
    over the packs: a pack macro the project defines visibly, whose expansion does something else (a
    `CUDA_CHECK` that calls `assert(0)` where the pack says it throws, or a helper in another file that calls
    `exit`), is judged by what it expands to, and the finding names the definition.

    One finding per interface method definition, the root cause: the method has no try/catch around what can
    throw. It is located at the method's definition, where the fix goes, and says how many throw sites it has
    (a site counts once however often a macro expands it, and a helper's once however often it is called); the
    message lists the kinds of site with their call chains, and every site is a related location (SARIF
    `relatedLocations`) with its chain from the method. A helper that two methods reach counts for both: each
    needs its own try. A method a base class defines for several plugin classes is one finding that names them.
    The walk stops at a `noexcept` callee: nothing is thrown out of one (std::terminate runs at its own boundary,
    and no try above it helps), so its throw sites are its finding, not its callers'. An interface method calling
    another (`serialize` calling a `noexcept` `serializeFromDevice`, a destructor calling `terminate()`) does not
    repeat the callee's sites; a `noexcept` helper that is no interface method is a finding of its own, at its
    definition, naming the interface methods that reach it (a try/catch in them cannot catch it).
    The severity is the highest of its sites'. A `trtlint: ignore[TRT204]` applies where the finding is, on
    (or above) the method's definition line, and silences the whole method; one on a throw site no longer
    does (TRT002 then reports it unused).

    ## Why it matters
    Every TensorRT plugin interface method is `noexcept`: an exception that reaches its boundary calls
    `std::terminate` and ends the whole process (the inference server, not just the request), instead of the
    error status TensorRT knows how to handle.

    ## Example
    ```cpp
    int32_t FooPlugin::enqueue(...) noexcept
    {
        ELLM_CHECK(inputDesc[0].dims.nbDims == 3, "rank");   // throws std::runtime_error
        ...
    }
    ```

    ## Fix
    Wrap the body of the interface method in `try { ... } catch (std::exception const& e) { log; return -1; }`
    (or return `nullptr` / do nothing, as the method's contract says), or use a check that returns a status
    (`PLUGIN_CHECK_CUDA`, `ASSERT_FAILURE`).
    """

    code = "TRT204"
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "lifecycle", "py_creators", "registrations"})
    name = "throw-across-boundary"
    family = "plugin"
    severity = Severity.ERROR

    VALID = [
        {
            # the project's CUDA_CHECK (a name the packs say throws) ends in assert(0), which this program's Release
            # build compiles out: as compiled, the macro neither throws nor exits, so no throw leaves enqueue
            "files": {
                "CMakeLists.txt": "project(foo)\nset(CMAKE_BUILD_TYPE Release)\nadd_library(foo SHARED plugins/foo.cpp)\n",
                "common/macros.h": (
                    "#pragma once\n#include <cassert>\n#include <iostream>\n#include <cuda_runtime.h>\n"
                    "#define CUDA_CHECK(call) { cudaError_t e = call; if (e != cudaSuccess) { std::cerr << e; assert(0); } }\n"),
                "plugins/foo.cpp": plugin_cpp("    CUDA_CHECK(cudaMemsetAsync(outputs[0], 0, 16, stream));",
                                              '#include "../common/macros.h"'),
            },
        },
        {
            # the project's CUDA_CHECK ends the process (TRT205 says so); in this invocation the checked call is not
            # declared (a header not found), so the macro's calls are unresolved: each is still the function it
            # names, never the macro that spells them (which the packs say throws)
            "files": {
                "common/macros.h": (
                    "#pragma once\n#include <cstdlib>\n#include <iostream>\n"
                    "#define CUDA_CHECK(status) do { auto ret = (status); if (ret != 0) { \\\n"
                    "  std::cerr << cudaGetErrorString(ret); abort(); } } while (0)\n"),
                "plugins/foo.cpp": plugin_cpp("    CUDA_CHECK(cudaHostAllocPortable(&mHost,\n"
                                              "                                    16));",
                                              '#include "../common/macros.h"\nstatic void* mHost;'),
            },
        },
        {"files": {"plugins/foo.cpp": plugin_cpp(_TRY, _CHECK)}},
        {"files": {"plugins/foo.cpp": plugin_cpp("    if (!inputs[0])\n    {\n        return -1;\n    }", "#include <stdexcept>")}},
        {"files": {"plugins/foo.cpp": plugin_cpp('    std::string s = fmt("%d", 1);', _RETHROW_DEAD)}},
        {"files": {"plugins/foo.cpp": plugin_cpp("    size_t n = elementSize(inputDesc[0].type);\n    launch(inputDesc[0].type);",
                                                 _DTYPE_DISPATCH)}},
        # a lookup after a membership test of the same key: the key is there, .at() does not throw
        {"files": {"plugins/foo.cpp": plugin_cpp("    int v = gScale.count(1) ? gScale.at(1) : 0;\n"
                                                 "    if (gScale.find(2) != gScale.end())\n    {\n        v += gScale.at(2);\n    }",
                                                 "#include <map>\nstatic std::map<int, int> gScale;")}},
        # a lookup right after the key was given to the map (inserted, emplaced, assigned): the key is there whether or
        # not the insertion took place
        {"files": {"plugins/foo.cpp": plugin_cpp(_GIVEN_KEY, "#include <map>\n#include <string>\n" + _NAMES)}},
        {"files": {"plugins/foo.cpp": plugin_cpp("    unsigned n = elementSize(1);", _EXHAUSTIVE)}},
        # the code after a switch with no default whose every case returns is that switch's default: reached only by a
        # data type no case names, or a value no enumerator of the plugin's own enum names
        {"files": {"plugins/foo.cpp": plugin_cpp(_SIZES, after_switch(_RAISE))}},
        # the default of a switch naming every enumerator of its enum: only a value the plugin made invalid reaches it
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    switch (gTactic)\n    {\n    case Tactic::kNaive: break;\n    case Tactic::kSmart: break;\n"
            "    default: throw std::runtime_error(\"unknown tactic\");\n    }",
            "#include <stdexcept>\nenum class Tactic : int32_t\n{\n    kNaive = 1,\n    kSmart = 2,\n};\n"
            "static Tactic gTactic = Tactic(1);")}},
        # an index out of range is a program error (std::logic_error), as a failed assert: a sequence's at(i) and a
        # bounds-checked accessor of the project's own
        {"files": {"plugins/foo.cpp": plugin_cpp("    std::vector<int> v{1};\n    int x = v.at(0);\n"
                                                 "    Coords4 dims{};\n    long y = dims[1];",
                                                 "#include <vector>\n" + _ACCESSOR)}},
        # a null test of enqueue's own descriptors and tensor arrays, which TensorRT never passes null: an argument
        # precondition (std::invalid_argument is a std::logic_error), not a runtime failure
        {"files": {"plugins/foo.cpp": plugin_cpp(_NULL_ARGS, _VALIDATE)}},
        # enqueue calls a noexcept interface method that throws, whose own finding is silenced where it is: nothing
        # throws out of initialize, so enqueue is clean
        {"files": {"plugins/foo.cpp": _calls_initialize("    // trtlint: ignore[TRT204]\n")}},
    ]
    INVALID = [
        {
            # the workspace may be null (a plugin that asks for none), a helper's parameter is whatever the plugin
            # passes it, a global is the plugin's own: each can be null at run time
            "files": {"plugins/foo.cpp": plugin_cpp("    PLUGIN_VALIDATE(inputs != nullptr && workspace != nullptr);\n"
                                                    "    PLUGIN_VALIDATE(gBuf != nullptr);\n    fill(gBuf);", _NULL_OWN)},
            "expect": [(
                "plugins/foo.cpp", 21,
                "noexcept FooPlugin::enqueue can throw at 3 sites with no try/catch on the way, and an exception leaving it "
                "calls std::terminate: PLUGIN_VALIDATE (throws PluginError when the condition is false) at 2 sites via "
                "FooPlugin::enqueue -> PLUGIN_VALIDATE; `throw std::invalid_argument` via FooPlugin::enqueue -> fill -> throw",
            )],
        },
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    checkShape(1);", _CHECK)},
            "expect": [(
                "plugins/foo.cpp", 17,
                "noexcept FooPlugin::enqueue can throw at 1 site with no try/catch on the way, and an exception "
                "leaving it calls std::terminate: ELLM_CHECK (throws std::runtime_error when the condition is false) "
                "via FooPlugin::enqueue -> checkShape -> ELLM_CHECK",
                "FooPlugin::enqueue",
            )],
        },
        {
            "files": {"plugins/foo.cpp": plugin_cpp('    throw std::runtime_error("unsupported");', "#include <stdexcept>")},
            "expect": [("plugins/foo.cpp", 12, "`throw std::runtime_error` via FooPlugin::enqueue -> throw")],
        },
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    std::map<int, int> m;\n    int x = m.at(2);",
                                                    "#include <map>\n#include <stdexcept>")},
            "expect": [("plugins/foo.cpp", 13, "std::map::at (throws std::out_of_range)")],
        },
        {
            # a lookup of a key another insertion gave, or one erased after it was given, can miss
            "files": {"plugins/foo.cpp": plugin_cpp(
                _GIVEN_KEY.replace("gNames.at(level + 1)", "gNames.at(level + 2)")
                .replace("    int last = gIds.at(3);", "    gIds.erase(3);\n    int last = gIds.at(3);"),
                "#include <map>\n#include <string>\n" + _NAMES)},
            "expect": [(
                "plugins/foo.cpp", 16,
                "noexcept FooPlugin::enqueue can throw at 2 sites with no try/catch on the way, and an exception leaving "
                "it calls std::terminate: std::map::at (throws std::out_of_range) via FooPlugin::enqueue -> std::map::at; "
                "std::unordered_map::at (throws std::out_of_range) via FooPlugin::enqueue -> std::unordered_map::at",
            )],
        },
        {
            # out_of_range on a missing key is a runtime failure; a count over a limit too
            "files": {"plugins/foo.cpp": plugin_cpp('    int a = attr("axis");\n    setBatch(a);', _ATTR_LOOKUP)},
            "expect": [(
                "plugins/foo.cpp", 31,
                "noexcept FooPlugin::enqueue can throw at 2 sites with no try/catch on the way, and an exception "
                "leaving it calls std::terminate: `throw std::out_of_range` via FooPlugin::enqueue -> attr -> throw; "
                "`throw std::runtime_error` via FooPlugin::enqueue -> setBatch -> throw",
            )],
        },
        {
            # one finding for the method, at its definition (where the try/catch goes): four sites, the helper's
            # once however often it is called; each site is a related location
            "files": {"plugins/foo.cpp": plugin_cpp(
                '    checkShape(1);\n    ELLM_CHECK(inputs[0] != nullptr, "no input");\n    checkShape(2);\n'
                '    ELLM_CHECK(outputs[0] != nullptr, "no output");\n    throw std::runtime_error("unsupported");', _CHECK)},
            "expect": [(
                "plugins/foo.cpp", 17,
                "FooPlugin::enqueue can throw at 4 sites with no try/catch on the way, and an exception leaving it calls "
                "std::terminate: ELLM_CHECK (throws std::runtime_error when the condition is false) at 2 sites via "
                "FooPlugin::enqueue -> ELLM_CHECK; `throw std::runtime_error` via FooPlugin::enqueue -> throw; "
                "ELLM_CHECK (throws std::runtime_error when the condition is false) via FooPlugin::enqueue -> "
                "checkShape -> ELLM_CHECK",
            )],
        },
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    nvinfer1::DataType d = toDataType(nvinfer1::PluginFieldType::kINT8);",
                                                    _FIELD_TYPE_MAP)},
            "expect": [("plugins/foo.cpp", 22, "`throw std::invalid_argument` via FooPlugin::enqueue -> toDataType -> throw")],
        },
        {
            # a branch that breaks out of the switch reaches the throw after it
            "files": {"plugins/foo.cpp": plugin_cpp("    unsigned n = elementSize(1);",
                                                    _EXHAUSTIVE.replace("case 0: return 4;", "case 0: break;"))},
            "expect": [("plugins/foo.cpp", 23, "`throw std::runtime_error` via FooPlugin::enqueue -> elementSize -> throw")],
        },
        {
            # after a switch with no default: a case that breaks out (in an `if` too) reaches the throw after it ...
            "files": {"plugins/foo.cpp": plugin_cpp(_SIZES, after_switch(_RAISE, _NESTED_BREAK))},
            "expect": [("plugins/foo.cpp", 45, "`throw std::runtime_error` via FooPlugin::enqueue -> tile -> throw")],
        },
        {
            # ... and so do the enumerators no case names
            "files": {"plugins/foo.cpp": plugin_cpp(_SIZES, after_switch(_RAISE).replace("    case Tactic::kNaive: return 1;\n", ""))},
            "expect": [("plugins/foo.cpp", 40, "`throw std::runtime_error` via FooPlugin::enqueue -> tile -> throw")],
        },
        {
            # ... and from a creator's method, a data type the model gives (a field, the blob)
            "files": {"plugins/foo.cpp": exits_plugin(
                create="        unsigned k = elementSize(static_cast<DataType>(fc->nbFields));", helpers=after_switch(_RAISE))},
            "expect": [("plugins/foo.cpp", 56, "`throw std::runtime_error` via FooPluginCreator::createPlugin -> elementSize -> throw")],
        },
        {
            # a creator's data type comes from the model (a field, the blob): its dispatch's last branch runs
            "files": {"plugins/foo.cpp": pair_cpp(create=(
                "        DataType t = static_cast<DataType>(fc->nbFields);\n"
                "        if (t == DataType::kFLOAT)\n        {\n            alpha = 1.F;\n        }\n"
                "        else if (t == DataType::kHALF)\n        {\n            alpha = 2.F;\n        }\n"
                "        else\n        {\n            throw std::runtime_error(\"unsupported type\");\n        }"))
                .replace("#include <NvInferRuntime.h>", "#include <NvInferRuntime.h>\n#include <stdexcept>", 1)},
            "expect": [("plugins/foo.cpp", 34, "`throw std::runtime_error` via FooPluginCreator::createPlugin -> throw")],
        },
        {
            # a bare `throw;` rethrows what its try block threw: live when the try block can throw
            "files": {"plugins/foo.cpp": plugin_cpp("    checked(1);", _RETHROW_LIVE)},
            "expect": [("plugins/foo.cpp", 28, "`throw;` (a rethrow) via FooPlugin::enqueue -> checked -> throw")],
        },
        {
            # a throw site in a helper that three or more interface methods reach is one root cause: one finding at
            # the site naming the methods, not one per method
            "files": {"plugins/foo.cpp": plugin_cpp("    checkShape(1);", _CHECK).replace(
                "cudaStream_t stream) noexcept override;",
                "cudaStream_t stream) noexcept override;\n    int32_t getNbOutputs() const noexcept override\n"
                "    {\n        checkShape(2);\n        return 1;\n    }\n"
                "    int32_t initialize() noexcept override\n    {\n        checkShape(3);\n        return 0;\n    }", 1)},
            "expect": [(
                "plugins/foo.cpp", 9,
                "ELLM_CHECK (throws std::runtime_error when the condition is false) in checkShape can throw out of 3 "
                "noexcept interface methods that reach it with no try/catch on the way (FooPlugin::enqueue, "
                "FooPlugin::getNbOutputs, FooPlugin::initialize)",
                "checkShape:throws",
            )],
        },
        {
            # a helper two interface methods reach: each method is a finding of its own (each needs its try)
            "files": {"plugins/foo.cpp": plugin_cpp("    checkShape(1);", _CHECK).replace(
                "cudaStream_t stream) noexcept override;",
                "cudaStream_t stream) noexcept override;\n    int32_t getNbOutputs() const noexcept override\n"
                "    {\n        checkShape(2);\n        return 1;\n    }", 1)},
            "expect": [
                ("plugins/foo.cpp", 16, "noexcept FooPlugin::getNbOutputs can throw at 1 site", "FooPlugin::getNbOutputs"),
                ("plugins/foo.cpp", 22, "noexcept FooPlugin::enqueue can throw at 1 site", "FooPlugin::enqueue"),
            ],
        },
        {
            # a noexcept helper walked on its own counts among the functions that reach a shared site (initialize
            # reaches it only through the helper, out of which nothing is thrown)
            "files": {"plugins/foo.cpp": plugin_cpp("    checkShape(1);", _NOEXCEPT_HELPER).replace(
                "cudaStream_t stream) noexcept override;",
                "cudaStream_t stream) noexcept override;\n    int32_t getNbOutputs() const noexcept override\n"
                "    {\n        checkShape(2);\n        return 1;\n    }\n"
                "    int32_t initialize() noexcept override\n    {\n        viaHelper(3);\n        return 0;\n    }", 1)},
            "expect": [(
                "plugins/foo.cpp", 9,
                "ELLM_CHECK (throws std::runtime_error when the condition is false) in checkShape can throw out of 3 "
                "noexcept interface methods and helpers that reach it with no try/catch on the way (FooPlugin::enqueue, "
                "FooPlugin::getNbOutputs, checkedNoexcept)",
                "checkShape:throws",
            )],
        },
        {
            # enqueue calls noexcept initialize, which throws: only initialize's finding (nothing leaves initialize)
            "files": {"plugins/foo.cpp": _calls_initialize()},
            "expect": [(
                "plugins/foo.cpp", 16,
                "noexcept FooPlugin::initialize can throw at 1 site with no try/catch on the way, and an exception "
                "leaving it calls std::terminate: ELLM_CHECK (throws std::runtime_error when the condition is false) "
                "via FooPlugin::initialize -> checkShape -> ELLM_CHECK",
                "FooPlugin::initialize",
            )],
        },
        {
            # a noexcept helper that throws terminates at its own boundary: one finding there, where the fix goes,
            # naming the method that reaches it; enqueue's try around one call cannot catch it, nor would one
            # around the other
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    try\n    {\n        checkedNoexcept(1);\n    }\n    catch (...)\n    {\n        return -1;\n    }\n"
                "    viaHelper(2);", _NOEXCEPT_HELPER)},
            "expect": [(
                "plugins/foo.cpp", 11,
                "noexcept checkedNoexcept (reached from FooPlugin::enqueue; a try/catch there cannot catch it) can "
                "throw at 1 site with no try/catch on the way, and an exception leaving it calls std::terminate: "
                "ELLM_CHECK (throws std::runtime_error when the condition is false) via checkedNoexcept -> checkShape "
                "-> ELLM_CHECK",
                "checkedNoexcept",
            )],
        },
    ]

    VALID += [
        # the carver's throw tests its size parameter, which every hop from enqueue passes on unchanged and enqueue
        # fills with the plugin's own getWorkspaceSize(...): TensorRT hands enqueue at least that much, so the throw
        # checks the plugin's own size arithmetic (an invariant), not a run-time condition (the wrapper's size-query
        # branch writes the parameter, but returns before any carve)
        {"files": {"plugins/foo.cpp": _own_request()}},
        {"files": {"plugins/foo.cpp": _own_request(test="left < n")}},
        # a project's CUDA_CHECK (a name the packs say throws) expands to a helper in another file that calls exit:
        # what the project's definition does decides, and nothing is thrown (TRT205 reports the exit)
        {"files": fail_helper_files()},
    ]
    INVALID += [
        {
            # enqueue passes a member (not the size it asked TensorRT for): the carve may exceed what it got
            "files": {"plugins/foo.cpp": _own_request(size="mWorkspaceSize")},
            "expect": [("plugins/foo.cpp", 37, "noexcept FooPlugin::enqueue can throw at 1 site with no try/catch on the "
                        "way, and an exception leaving it calls std::terminate: `throw std::runtime_error` via "
                        "FooPlugin::enqueue -> decode -> nextPtr -> throw")],
        },
        {
            # ... or a literal, or a computed value
            "files": {"plugins/foo.cpp": _own_request(size="64")},
            "expect": [("plugins/foo.cpp", 37, "`throw std::runtime_error` via FooPlugin::enqueue -> decode -> nextPtr")],
        },
        {
            "files": {"plugins/foo.cpp": _own_request(size="getWorkspaceSize(inputDesc, 2, outputDesc, 3) / 2")},
            "expect": [("plugins/foo.cpp", 37, "`throw std::runtime_error` via FooPlugin::enqueue -> decode -> nextPtr")],
        },
        {
            # the same throw reached from another method (initialize hands the wrapper a member's size): reported for
            # that method; enqueue, which passes its own request, is not
            "files": {"plugins/foo.cpp": _own_request().replace(
                "    size_t mWorkspaceSize{64};",
                "    int32_t initialize() noexcept override\n    {\n        return decode(16, mBuf, mWorkspaceSize, nullptr);\n"
                "    }\n    size_t mWorkspaceSize{64};\n    void* mBuf{nullptr};")},
            "expect": [("plugins/foo.cpp", 42, "noexcept FooPlugin::initialize can throw at 1 site with no try/catch on "
                        "the way, and an exception leaving it calls std::terminate: `throw std::runtime_error` via "
                        "FooPlugin::initialize -> decode -> nextPtr -> throw", "FooPlugin::initialize")],
        },
        {
            # the carver tests something else than its size parameter
            "files": {"plugins/foo.cpp": _own_request(test="n > 4096")},
            "expect": [("plugins/foo.cpp", 37, "`throw std::runtime_error` via FooPlugin::enqueue -> decode -> nextPtr")],
        },
        {
            # the wrapper writes the size on the way to the carve: what reaches the test is no longer the request
            "files": {"plugins/foo.cpp": _own_request(hop=" workspace_size -= 16;")},
            "expect": [("plugins/foo.cpp", 37, "`throw std::runtime_error` via FooPlugin::enqueue -> decode -> nextPtr")],
        },
        {
            # ... or hands it to another call first (a reference parameter may change it)
            "files": {"plugins/foo.cpp": _own_request(hop=" extern void shrink(size_t&); shrink(workspace_size);")},
            "expect": [("plugins/foo.cpp", 37, "`throw std::runtime_error` via FooPlugin::enqueue -> decode -> nextPtr")],
        },
        {
            # getWorkspaceSize calls the helper with a null workspace: it returns the size before the carving that
            # throws, so only enqueue, which passes its workspace, can throw there
            "files": {"plugins/foo.cpp": _SIZE_QUERY},
            "expect": [("plugins/foo.cpp", 34, "noexcept FooPlugin::enqueue can throw at 1 site with no try/catch on the "
                        "way, and an exception leaving it calls std::terminate: `throw std::runtime_error` via "
                        "FooPlugin::enqueue -> run -> carve -> throw")],
        },
        {
            # a pack's entry gives the macro its own severity (here a user's pack: a warning); the finding takes it
            "files": {
                "plugins/foo.cpp": plugin_cpp("    checkShape(1);", _CHECK.replace("ELLM_CHECK", "SOFT_CHECK")),
                "tools/macros.yaml": (
                    "version: 1\nmacros:\n  - {name: SOFT_CHECK, behaviour: throw, severity: warning, "
                    "what: \"throws std::runtime_error when the condition is false\"}\n"),
            },
            "config": {"rule-packs": ["tools/macros.yaml"]},
            "expect": [("plugins/foo.cpp", 17, "SOFT_CHECK (throws std::runtime_error when the condition is false) via "
                        "FooPlugin::enqueue -> checkShape -> SOFT_CHECK")],
            "severity": "warning",
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        groups = escapes_by_method(index, "throw", honour_try=True, noexcept_only=True)
        # a site in a helper that many interface methods reach is one root cause: reported once, at the site,
        # naming the methods; each method's own finding keeps the rest
        reached: dict[tuple, list] = {}
        for group in groups:
            for esc in group.escapes:
                if len(esc.chain) > 1:
                    reached.setdefault(_key(esc), []).append((group, esc))
        shared = {k for k, v in reached.items() if len(v) >= _SHARED}
        for group in groups:
            own = [esc for esc in group.escapes if _key(esc) not in shared]
            if own:
                yield self._method_finding(group, own)
        by_helper: dict[str, list] = {}
        for k in sorted(shared, key=lambda k: k[:3]):
            by_helper.setdefault(reached[k][0][1].chain[-1].usr, []).extend(reached[k])
        for hits in by_helper.values():
            yield self._shared_finding(hits)

    def _method_finding(self, group, escapes) -> Diagnostic:
        fn = group.fn
        method = short(fn)
        sites = [(esc, *_site(esc)) for esc in escapes]
        # one item per kind of site and chain, in walk order, with how many sites it stands for
        items: dict[str, int] = {}
        for _esc, what, chain in sites:
            key = f"{what} via {chain}"
            items[key] = items.get(key, 0) + 1
        shown = [k if n == 1 else k.replace(" via ", f" at {n} sites via ", 1) for k, n in list(items.items())[:_SHOWN]]
        more = len(items) - len(shown)
        listed = "; ".join(shown) + (f"; and {more} more (see the related locations)" if more > 0 else "")
        n = len(sites)
        if group.reached_from:
            # a noexcept helper: what throws in it ends the process at its own boundary, whatever its callers catch
            names = [short(r) for r in group.reached_from]
            more_names = f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else ""
            used_by = f" (reached from {', '.join(names[:_SHOWN])}{more_names}; a try/catch there cannot catch it)"
        else:
            others = [e.plugin for e in group.entries if e.plugin != (fn.cls or "").split("::")[-1]]
            used_by = f" (inherited by {', '.join(others)})" if others else ""
        return self.diag(
            fn.span,
            f"noexcept {method}{used_by} can throw at {n} site{'s' if n != 1 else ''} with no try/catch on the "
            f"way, and an exception leaving it calls std::terminate: {listed}",
            related=[Related(esc.call.span, f"{what}: {chain}") for esc, what, chain in sites]
            + [Related(r.span, f"{short(r)} reaches noexcept {method}") for r in group.reached_from],
            symbol=method,
            severity=max((self._severity(esc) for esc, _w, _c in sites), key=lambda s: s.rank),
        )

    def _shared_finding(self, hits) -> Diagnostic:
        """One finding for the throw sites of one helper that many interface methods reach (``hits``: each
        (method group, escape) pair), at its first site."""
        esc = hits[0][1]
        helper = short(esc.chain[-1])
        kinds: dict[str, set] = {}
        for _g, e in hits:
            kinds.setdefault(_site(e)[0], set()).add(_key(e))
        what = "; ".join(k if len(v) == 1 else f"{k} at {len(v)} sites" for k, v in kinds.items())
        methods = sorted({short(g.fn) for g, _e in hits})
        # a noexcept helper walked on its own (no interface method) reaches it too
        reachers = "interface methods and helpers" if any(g.reached_from for g, _e in hits) else "interface methods"
        shown = ", ".join(methods[:_SHOWN]) + (f" and {len(methods) - _SHOWN} more" if len(methods) > _SHOWN else "")
        firsts = {}
        for g, e in hits:
            firsts.setdefault(g.fn.usr, (g, e))
        return self.diag(
            esc.call.span,
            f"{what} in {helper} can throw out of {len(methods)} noexcept {reachers} that reach it with no "
            f"try/catch on the way ({shown}), and an exception leaving one calls std::terminate: catch it in "
            f"{helper} or in each method",
            related=[Related(e.call.span, f"{_site(e)[0]}") for e in {_key(e): e for _g, e in hits}.values()][1:]
            + [Related(g.fn.span, f"{short(g.fn)} reaches it: {_site(e)[1]}") for g, e in firsts.values()],
            symbol=f"{helper}:throws",
            severity=max((self._severity(e) for _g, e in hits), key=lambda s: s.rank),
        )

    def _severity(self, esc) -> Severity:
        return Severity(esc.behaviour.severity) if esc.behaviour is not None and esc.behaviour.severity else self.severity


def _key(esc) -> tuple:
    c = esc.call
    return (c.span.path, c.span.line, c.span.col, c.kind, c.callee)


_SHARED = 3  # interface methods reaching one site in a helper before the site is reported once, as the root cause
_SHOWN = 3  # kinds of throw site the message lists; the related locations carry every site


def _site(esc) -> tuple[str, str]:
    """What throws at an escape's site, and the call chain from the interface method to it."""
    call = esc.call
    if call.kind == "throw":
        thrown = call.args[0] if call.args else ""
        what = "`throw;` (a rethrow)" if thrown in ("", "(rethrow)") else f"`throw {thrown}`"
        if esc.in_macro:
            what += f" (expanded from macro {esc.in_macro})"
        return what, chain_text(esc, "throw")
    return f"{call.callee} ({esc.behaviour.what})", chain_text(esc, call.callee)
