"""The editor's session after a C++ edit (issue 36) reuses what the edit cannot have changed: the declarations of the
shared headers the edited unit includes (``trtlint/editor/keptheaders.py``) and the hot-path walks of the functions
whose facts did not change (``trtlint/checks/hotpath/_walk.py``). The proof, as in ``tests/test_incremental.py``:
after each edit of a sequence, the session's findings equal a from-scratch run's over the same texts. The sequence
holds the edits such reuse could get wrong: a ``#define`` above the ``#include`` of a shared header that changes
what an inline function of the header calls (the header's declarations must be read again), edits two calls below
both plugins' ``enqueue`` in a unit of its own (every walk that entered it must be made again: a cuBLAS handle bound
to the stream there clears TRT303 for both plugins), and an edit of the shared header itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from trtlint.editor.session import Session

from .helpers import diag_keys as _key, full_run_keys, write_project

A = "plugins/aPlugin.cpp"
B = "plugins/bPlugin.cpp"
HELPERS = "common/helpers.h"
DEEPER = "common/helpers.cpp"

_HELPERS = """#pragma once
#include <cuda_runtime.h>
typedef struct cublasContext* cublasHandle_t;
extern "C" int cublasSscal_v2(cublasHandle_t handle, int n, float const* alpha, float* x, int incx);
extern "C" int cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream);
namespace helpers
{
void deeper(cudaStream_t s);
inline void prepare(cudaStream_t s)
{
#ifdef HELPERS_ALLOCATE
    void* p = nullptr;
    cudaMalloc(&p, 16);
#endif
    deeper(s);
}
} // namespace helpers
"""

# two calls below each plugin's enqueue (enqueue -> prepare -> deeper), in a unit of its own
_DEEPER = """#include "common/helpers.h"
static cublasHandle_t gHandle = nullptr;
void helpers::deeper(cudaStream_t s)
{
    cublasSscal_v2(gHandle, 1, nullptr, nullptr, 1);
}
"""


def _plugin(name: str) -> str:
    return f"""#include <NvInferRuntime.h>
#include <cuda_runtime.h>
#include <vector>
#include "common/helpers.h"
using namespace nvinfer1;
namespace
{{
constexpr char const* kNAME{{"{name}"}};
constexpr char const* kVERSION{{"1"}};
}} // namespace
class {name} : public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime
{{
public:
    char const* getPluginName() const noexcept override {{ return kNAME; }}
    char const* getPluginVersion() const noexcept override {{ return kVERSION; }}
    char const* getPluginNamespace() const noexcept override {{ return ""; }}
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
}};
int32_t {name}::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept
{{
    helpers::prepare(stream);
    return 0;
}}
class {name}Creator : public IPluginCreatorV3One
{{
public:
    char const* getPluginName() const noexcept override {{ return kNAME; }}
    char const* getPluginVersion() const noexcept override {{ return kVERSION; }}
    char const* getPluginNamespace() const noexcept override {{ return ""; }}
    PluginFieldCollection const* getFieldNames() noexcept override {{ return &mFC; }}
    IPluginV3* createPlugin(char const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept override
    {{
        return new {name}();
    }}
private:
    PluginFieldCollection mFC{{}};
}};
REGISTER_TENSORRT_PLUGIN({name}Creator);
"""


def _project(root: Path) -> None:
    files = {
        "CMakeLists.txt": "add_library(plugins SHARED plugins/aPlugin.cpp plugins/bPlugin.cpp common/helpers.cpp)\n",
        HELPERS: _HELPERS,
        DEEPER: _DEEPER,
        A: _plugin("APlugin"),
        B: _plugin("BPlugin"),
    }
    write_project(root, files)



def _edits(root: Path) -> list[tuple[str, str, str]]:
    a, b, h, d = ((root / r).read_text() for r in (A, B, HELPERS, DEEPER))
    typed = a.replace("    helpers::prepare(stream);\n", "    helpers::prepare(stream);\n    cudaDeviceSynchronize();\n")
    define = typed.replace('#include "common/helpers.h"\n', '#define HELPERS_ALLOCATE 1\n#include "common/helpers.h"\n')
    # a call of a function no unit defines yet (a library call), then defined in the other plugin's unit: every
    # walk through deeper now enters it, though no function such a walk entered changed
    calls_tail = d.replace("void helpers::deeper", "namespace helpers\n{\nvoid tail(cudaStream_t s);\n}\nvoid helpers::deeper")
    calls_tail = calls_tail.replace("    cublasSscal_v2(", "    helpers::tail(s);\n    cublasSscal_v2(")
    tail = b + "namespace helpers\n{\nvoid tail(cudaStream_t s)\n{\n    cublasSetStream_v2(nullptr, s);\n}\n} // namespace helpers\n"
    b_sync = b.replace("    return 0;\n}\nclass", "    cudaDeviceSynchronize();\n    return 0;\n}\nclass", 1)
    return [
        ("cudaDeviceSynchronize typed into enqueue", A, typed),
        ("a #define above the shared header's #include: its inline function now allocates", A, define),
        ("a comment below the includes (the header's declarations as the #define left them)", A, define + "// x\n"),
        ("the #define removed", A, typed),
        ("two calls below both enqueues: a call of a function defined nowhere", DEEPER, calls_tail),
        ("that function defined in the other unit: it binds the cuBLAS handle to the stream", B, tail),
        ("the other unit's enqueue edited (it skips the shared header)", B, b_sync),
        ("the call removed, a cudaFree added two calls below enqueue", DEEPER,
         d.replace("    cublasSscal_v2(", "    cudaFree(nullptr);\n    cublasSscal_v2(")),
        ("the shared header: a call added to the inline function", HELPERS,
         h.replace("    deeper(s);\n", "    deeper(s);\n    cudaStreamSynchronize(s);\n")),
        ("the first unit edited again (over the edited header)", A, typed + "// y\n"),
        ("undo", A, a),
        ("undo", DEEPER, d),
        ("undo", B, b),
    ]


@pytest.mark.parametrize("select", [None, ["ALL"]], ids=["default", "all"])
def test_session_reuse_equals_a_full_run_after_each_edit(tmp_path, select):
    proj = tmp_path / "proj"
    _project(proj)
    overrides = {"select": select} if select else None
    # (isolate: as the language server extracts, in a worker handed the open buffers at every extraction)
    s = Session(proj, use_cache=False, jobs=1, overrides=overrides, isolate=True)
    try:
        s.load()
        s.check()
        texts: dict[str, str] = {}
        codes = set()
        for i, (label, rel, text) in enumerate(_edits(proj)):
            texts[rel] = text
            s.set_buffer(rel, text)
            got = _key(s.check())
            codes.update(k[0] for k in got)
            want = full_run_keys(proj, texts, tmp_path / f"scratch{i}", select)
            assert got == want, f"after '{label}': the session's findings differ from a full run"
        # the reuse was exercised: units re-extracted with their shared header's declarations kept, and the edits'
        # findings were there to get wrong (the allocation in the header, the synchronisation in enqueue)
        assert s.kept_headers >= 3
        assert s.state.walk_carry.hits > 0  # walks of unchanged functions taken from the check before
        assert {"TRT301", "TRT302", "TRT303"} <= codes
    finally:
        s.close()
