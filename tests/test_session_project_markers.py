"""The editor's session parses a C++ buffer when a full run would: not only for a plugin marker of its own
(``has_plugin_marker``), but for a call of a project marker macro or a class deriving a project plugin class
(``store.scancache.ProjectMarkers``, the one decision of ``pipeline/run.py`` and ``editor/session.py``). Before, a
markerless buffer that derives the project's ``BasePlugin`` or calls the project's plugin-writing macro was left
unparsed when opened or typed in the editor (its hot path unseen: no TRT301), and a header deriving a project base was
taken for a shared header. Each case: the session's findings after the edit equal a from-scratch run's over the same
texts, and hold the finding (real libclang, the session in process as ``tests/test_session_reuse.py`` drives it)."""

from __future__ import annotations

from pathlib import Path

from trtlint.editor.session import Session

from .helpers import diag_keys, full_run_keys, write_project

_BASE = """#pragma once
#include <NvInferRuntime.h>
#include <string>
using namespace nvinfer1;
class BasePlugin : public IPluginV2
{
protected:
    void setPluginNamespace(char const* ns) noexcept override { mNamespace = ns; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }
    std::string mNamespace;
};
"""

# no marker of its own: no IPluginV*, no getPluginName, no X::enqueue(; its methods are written in the class
_FOO = """#include "common/plugin.h"
#include <cuda_runtime.h>
class FooPlugin final : public BasePlugin
{
public:
    char const* getPluginType() const noexcept override { return "Foo"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    int enqueue(int batchSize, void const* const* inputs, void* const* outputs, void* workspace,
                cudaStream_t stream) noexcept override
    {
        void* scratch = nullptr;
        cudaMalloc(&scratch, 16);
        return 0;
    }
};
"""

# a project macro that writes a whole plugin class, its enqueue calling the function it is handed
_MACROS = """#pragma once
#include <NvInferRuntime.h>
#include <cuda_runtime.h>
#define DEFINE_STREAM_PLUGIN(kind, body)                                                          \\
    class kind : public nvinfer1::IPluginV2                                                       \\
    {                                                                                             \\
    public:                                                                                       \\
        char const* getPluginType() const noexcept override { return #kind; }                     \\
        char const* getPluginVersion() const noexcept override { return "1"; }                    \\
        int enqueue(int batchSize, void const* const* inputs, void* const* outputs, void* workspace, \\
                    cudaStream_t stream) noexcept override { return body(stream); }               \\
    };
"""

# calls the macro: no marker of its own, no class of its own
_BAR = """#include "common/macros.h"
static int barBody(cudaStream_t stream)
{
    void* scratch = nullptr;
    cudaMalloc(&scratch, 16);
    return 0;
}
DEFINE_STREAM_PLUGIN(BarPlugin, barBody)
"""

_SELECT = ["TRT301"]


def _session(proj: Path) -> Session:
    # (isolate: as the language server extracts, in a worker handed the open buffers)
    s = Session(proj, use_cache=False, jobs=1, overrides={"select": _SELECT}, isolate=True)
    s.load()
    s.check()
    return s


def _edit_equals_full_run(s: Session, proj: Path, scratch: Path, texts: dict) -> list[tuple]:
    for rel, text in texts.items():
        s.set_buffer(rel, text)
    got = diag_keys(s.check())
    assert got == full_run_keys(proj, texts, scratch, _SELECT), "the session's findings differ from a full run"
    return got


def _project(proj: Path, files: dict) -> None:
    write_project(proj, {"trtlint.toml": 'tensorrt-version = "8.6"\n', **files})


def test_a_buffer_deriving_a_project_plugin_base_is_parsed(tmp_path):
    proj = tmp_path / "proj"
    _project(proj, {"plugins/common/plugin.h": _BASE})
    s = _session(proj)
    try:
        got = _edit_equals_full_run(s, proj, tmp_path / "scratch", {"plugins/foo.cpp": _FOO})
        assert ("TRT301", "plugins/foo.cpp", 12) in [k[:3] for k in got], got
    finally:
        s.close()


def test_a_header_deriving_a_project_plugin_base_is_parsed_and_not_shared(tmp_path):
    proj = tmp_path / "proj"
    _project(proj, {"plugins/common/plugin.h": _BASE, "plugins/foo.cpp": '#include "foo.h"\nstatic int gUnused = 0;\n',
                    "plugins/foo.h": "#pragma once\n"})
    s = _session(proj)
    try:
        got = _edit_equals_full_run(s, proj, tmp_path / "scratch", {"plugins/foo.h": "#pragma once\n" + _FOO})
        assert ("TRT301", "plugins/foo.h", 13) in [k[:3] for k in got], got
        # its declarations feed a plugin class: no includer leaves it to another (as the run decides)
        assert not s._shared_header("plugins/foo.h")
        assert s._shared_header("plugins/common/plugin.h") is False  # a marker of its own (IPluginV2)
    finally:
        s.close()


def test_a_buffer_calling_a_project_marker_macro_is_parsed(tmp_path):
    proj = tmp_path / "proj"
    _project(proj, {"plugins/common/macros.h": _MACROS})
    s = _session(proj)
    try:
        got = _edit_equals_full_run(s, proj, tmp_path / "scratch", {"plugins/bar.cpp": _BAR})
        assert [k[:2] for k in got if k[1] == "plugins/bar.cpp"] == [("TRT301", "plugins/bar.cpp")], got
    finally:
        s.close()


def test_a_base_typed_in_the_editor_makes_the_files_deriving_it_parsed(tmp_path):
    """The project's plugin classes follow an edit of the file that defines one: the base is put on a plugin
    interface in the editor; the unit on disk that derives it (unparsed by the load: no plugin class then) is parsed
    at once, and so is a buffer deriving it typed next."""
    proj = tmp_path / "proj"
    plain = _BASE.replace(" : public IPluginV2", "").replace(" override", "")
    _project(proj, {"plugins/common/plugin.h": plain, "plugins/foo.cpp": _FOO, "plugins/baz.cpp": "// nothing yet\n"})
    s = _session(proj)
    try:
        assert "BasePlugin" not in s.state.markers.classes
        got = _edit_equals_full_run(s, proj, tmp_path / "scratch", {"plugins/common/plugin.h": _BASE})
        assert "BasePlugin" in s.state.markers.classes
        assert ("TRT301", "plugins/foo.cpp", 12) in [k[:3] for k in got], got
        baz = _FOO.replace("FooPlugin", "BazPlugin").replace('"Foo"', '"Baz"')
        got = _edit_equals_full_run(s, proj, tmp_path / "scratch2", {"plugins/common/plugin.h": _BASE,
                                                                      "plugins/baz.cpp": baz})
        assert ("TRT301", "plugins/baz.cpp", 12) in [k[:3] for k in got], got
    finally:
        s.close()
