"""Issue 24 item 5: guards and paths on the hot path (real libclang). A one-time guard in a caller is carried
into its callees (a constructor reached only through a guarded creation, a helper called only under a flag);
a helper called with a null workspace only to compute its size (``if (!buf) { size = ...; return; }``) does
none of the work after that return on that call."""

from __future__ import annotations

from trtlint.checks.examples.hotpath import WS_HELPERS, plugin_cpp, plugin_ws_cpp, ws_call

from .helpers import check_project, write_project

_RUNNER = """class Runner
{
public:
    Runner()
    {
        cudaMalloc(&mBuf, 64);
    }
    void* mBuf{nullptr};
};
static Runner* mRunner = nullptr;
static bool mReady = false;
static void setup()
{
    void* p = nullptr;
    cudaMalloc(&p, 64);
}
static void prepare()
{
    void* p = nullptr;
    cudaMalloc(&p, 64);
}"""


def _findings(tmp_path, files, select):
    write_project(tmp_path, files)
    res = check_project(tmp_path, select=select)
    return sorted((d.code, d.span.line, str(d.severity.value), d.message) for d in res.diagnostics)


def test_guard_in_caller_is_carried_into_callees(tmp_path):
    body = ("    if (!mRunner)\n    {\n        mRunner = new Runner();\n    }\n"  # the constructor: once
            "    if (!mReady)\n    {\n        setup();\n        prepare();\n        mReady = true;\n    }\n"  # once
            "    prepare();")  # prepare() also runs on every call: hot
    got = _findings(tmp_path, {"plugins/foo.cpp": plugin_cpp(body, _RUNNER)}, ["TRT301"])
    by_line = {(line, sev): msg for _c, line, sev, msg in got}
    # the constructor and setup() run only under the one-time guards: not per inference, not reported; prepare()'s
    # allocation runs on every call as well
    assert set(by_line) == {(24, "error")}, got
    assert "once" not in by_line[(24, "error")]
    assert "FooPlugin::enqueue -> prepare -> cudaMalloc" in by_line[(24, "error")]


_TOPK = """static void radixTopk(void* buf, size_t& bufSize, void* out, cudaStream_t stream)
{
    size_t total = 4096;
    {
        if (!buf)
        {
            bufSize = total;
            return;
        }
    }
    std::vector<void*> parts;
    parts.push_back(buf);
    cudaMemsetAsync(buf, 0, total, stream);
}
static void topk(void* buf, size_t& bufSize, void* out, cudaStream_t stream)
{
    radixTopk(buf, bufSize, out, stream);
}
static size_t topkWorkspaceSize()
{
    size_t size = 0;
    void* workspace = nullptr;
    topk(workspace, size, nullptr, 0);
    return size;
}
static void fill(void* out, cudaStream_t stream)
{
    void* tmp = out;
    if (!tmp)
    {
        return;
    }
    cudaMalloc(&tmp, 64);
}
static size_t scan(void* temp, size_t& bytes, cudaStream_t stream)
{
    if (temp == nullptr)
    {
        bytes = 512;
        return bytes;
    }
    cudaMemsetAsync(temp, 0, bytes, stream);
    return bytes;
}"""


def test_size_query_call_does_not_reach_the_work(tmp_path):
    # enqueue asks radixTopk for its size with a null workspace (a local, passed on by topk): the push_back and the
    # unchecked memset after `if (!buf) return` never run on that call; a null test on a local (fill's tmp) is
    # not a size query
    body = "    size_t need = topkWorkspaceSize();\n    fill(nullptr, stream);"
    got = _findings(tmp_path, {"plugins/foo.cpp": plugin_cpp(body, _TOPK)}, ["TRT301", "TRT304"])
    assert [(c, line, sev) for c, line, sev, _m in got] == [("TRT301", 37, "error")], got


def test_size_query_helper_also_called_with_the_workspace_does_the_work(tmp_path):
    # radixTopk is asked for its size and then called with the workspace: its work runs on the hot path; scan is
    # only ever asked for its size (a literal nullptr)
    body = ("    size_t need = topkWorkspaceSize();\n"
            "    topk(workspace, need, outputs[0], stream);\n"
            "    size_t bytes = 0;\n"
            "    scan(nullptr, bytes, stream);")
    got = _findings(tmp_path, {"plugins/foo.cpp": plugin_cpp(body, _TOPK)}, ["TRT301", "TRT304", "TRT306"])
    assert sorted((c, line, sev) for c, line, sev, _m in got) == [("TRT304", 17, "warning"), ("TRT306", 16, "warning")], got


# issue 31: a helper's branch taken only when its workspace parameter is null does not run on a way that hands it a
# pointer from enqueue's workspace, when the plugin asks for one (WS_HELPERS: meanVar's cudaMalloc on line 18 and
# cudaFree on line 22 of plugin_ws_cpp's file)
def _lines(tmp_path, files, select):
    return [(c, line) for c, line, _sev, _msg in _findings(tmp_path, files, select)]


def test_workspace_from_every_caller(tmp_path):
    # groupNorm is reached with enqueue's workspace and, from a second helper, with a null one: the null branch of
    # meanVar runs on that way
    helpers = WS_HELPERS + "\nstatic void twice(float* out, cudaStream_t stream)\n{\n    groupNorm(out, 64, nullptr, stream);\n}"
    body = ws_call() + "\n    twice(static_cast<float*>(outputs[0]), stream);"
    assert _lines(tmp_path, {"plugins/foo.cpp": plugin_ws_cpp(body, helpers)}, ["TRT301", "TRT302"]) == [
        ("TRT301", 18), ("TRT302", 22)]


def test_workspace_of_every_class_sharing_an_enqueue(tmp_path):
    # a base class's enqueue: one derived plugin asks for a workspace, the other inherits the base's 0
    text = plugin_ws_cpp(ws_call(), WS_HELPERS, "return 0;").replace(
        "int32_t FooPlugin::enqueue(", "class BigPlugin : public FooPlugin\n{\npublic:\n"
        "    size_t getWorkspaceSize(DynamicPluginTensorDesc const* inputs, int32_t nbInputs,\n"
        "        DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override\n    {\n"
        "        return 4096;\n    }\n};\nclass SmallPlugin : public FooPlugin\n{\n};\nint32_t FooPlugin::enqueue(", 1)
    assert _lines(tmp_path, {"plugins/foo.cpp": text}, ["TRT301", "TRT302"]) == [("TRT301", 18), ("TRT302", 22)]
    # both ask for one: the null branches never run
    alone = tmp_path / "alone"
    text2 = text.replace("        return 0;\n", "        return 1024;\n", 1)
    assert _lines(alone, {"plugins/foo.cpp": text2}, ["TRT301", "TRT302"]) == []
