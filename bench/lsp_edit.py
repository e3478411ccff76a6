"""LSP latency: from a one-line edit to the published diagnostics, on a synthetic 100-plugin project.

    python bench/lsp_edit.py [--plugins 100] [--rounds 10] [--debounce-ms 100] [--keep DIR]

Generates an Edge-LLM-shaped project (per plugin: a C++ plugin + creator whose enqueue calls a launcher in a
.cu file; ONNX translations in ten Python files; one direct-route table), starts `trtlint lsp` over stdio with
a pygls client, waits for the initial diagnostics, then measures, per round, the wall time from sending a
one-line ``textDocument/didChange`` to receiving the ``publishDiagnostics`` that reflects it:

- python: a plugin name in a translation file is misspelt (a finding appears there), then restored (it clears);
- cpp: the plugin name constant in a C++ plugin file is renamed (a finding appears in the Python translation
  file: cross-file), then restored.

The figure includes the server's debounce (default 100 ms, the server's default). Prints median / p90 / max.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient

REPO = Path(__file__).resolve().parents[1]
PER_FILE = 10


def plugin_cpp(i: int) -> str:
    return f"""#include <NvInferRuntime.h>
#include <cuda_runtime.h>
#include <vector>
#include "kernels/p{i}Kernel.h"
using namespace nvinfer1;
namespace
{{
constexpr char const* kNAME{{"P{i}Plugin"}};
constexpr char const* kVERSION{{"1"}};
}} // namespace
namespace synth
{{
class P{i}Plugin : public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime
{{
public:
    char const* getPluginName() const noexcept override {{ return kNAME; }}
    char const* getPluginVersion() const noexcept override {{ return kVERSION; }}
    char const* getPluginNamespace() const noexcept override {{ return ""; }}
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
private:
    float mAlpha{{1.F}};
    int32_t mHeads{{1}};
}};
int32_t P{i}Plugin::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept
{{
    launchP{i}(static_cast<float const*>(inputs[0]), static_cast<float*>(outputs[0]), mAlpha, stream);
    return 0;
}}
class P{i}PluginCreator : public IPluginCreatorV3One
{{
public:
    P{i}PluginCreator()
    {{
        mFields.emplace_back(PluginField("alpha", nullptr, PluginFieldType::kFLOAT32, 1));
        mFields.emplace_back(PluginField("num_heads", nullptr, PluginFieldType::kINT32, 1));
        mFC.nbFields = static_cast<int32_t>(mFields.size());
        mFC.fields = mFields.data();
    }}
    char const* getPluginName() const noexcept override {{ return kNAME; }}
    char const* getPluginVersion() const noexcept override {{ return kVERSION; }}
    char const* getPluginNamespace() const noexcept override {{ return ""; }}
    PluginFieldCollection const* getFieldNames() noexcept override {{ return &mFC; }}
    IPluginV3* createPlugin(char const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept override
    {{
        return new P{i}Plugin();
    }}
private:
    std::vector<PluginField> mFields;
    PluginFieldCollection mFC{{}};
}};
REGISTER_TENSORRT_PLUGIN(P{i}PluginCreator);
}} // namespace synth
"""


def kernel_h(i: int) -> str:
    return f"#pragma once\n#include <cuda_runtime.h>\nvoid launchP{i}(float const* x, float* y, float alpha, cudaStream_t stream);\n"


def kernel_cu(i: int) -> str:
    return f"""#include "p{i}Kernel.h"
__global__ void p{i}Kernel(float const* x, float* y, float alpha)
{{
    y[threadIdx.x] = alpha * x[threadIdx.x];
}}
void launchP{i}(float const* x, float* y, float alpha, cudaStream_t stream)
{{
    p{i}Kernel<<<1, 128, 0, stream>>>(x, y, alpha);
}}
"""


def translations_py(start: int, n: int) -> str:
    out = ['"""ONNX translations (synthetic)."""', "", "import onnxscript", "from onnxscript import script", "",
           '_trt_edgellm = onnxscript.values.Opset("trt_edgellm", 1)', ""]
    for i in range(start, start + n):
        out += ["", "@script()", f"def _p{i}_translation(x: onnxscript.FLOAT, alpha: float, num_heads: int):",
                f"    return _trt_edgellm.P{i}Plugin(x, alpha=alpha, num_heads=num_heads)", ""]
    return "\n".join(out) + "\n"


def backend_py(n: int) -> str:
    table = ",\n".join(f'    "p{i}": "P{i}Plugin"' for i in range(n))
    return (
        "import tensorrt as trt\n\n"
        f"_OPERATION_CREATORS = {{\n{table},\n}}\n\n\n"
        "def _creator(name):\n"
        "    creator_name = _OPERATION_CREATORS.get(name, name)\n"
        '    return trt.get_plugin_registry().get_creator(creator_name, "1", "")\n'
    )


def make_project(root: Path, n: int) -> None:
    files = {
        "cpp/CMakeLists.txt": 'file(GLOB_RECURSE PLUGIN_SRCS "plugins/*.cpp" "plugins/*.cu")\n'
        'file(GLOB_RECURSE KERNEL_SRCS "kernels/*.cu")\nadd_library(plugins SHARED ${PLUGIN_SRCS} ${KERNEL_SRCS})\n',
        "tensorrt_edgellm/__init__.py": "",
        "tensorrt_edgellm/onnx/__init__.py": "",
        "experimental/builder/ops/backend.py": backend_py(n),
    }
    for i in range(n):
        files[f"cpp/plugins/p{i}Plugin/p{i}Plugin.cpp"] = plugin_cpp(i)
        files[f"cpp/kernels/p{i}Kernel.h"] = kernel_h(i)
        files[f"cpp/kernels/p{i}Kernel.cu"] = kernel_cu(i)
    for j in range(0, n, PER_FILE):
        files[f"tensorrt_edgellm/onnx/translations_{j // PER_FILE}.py"] = translations_py(j, min(PER_FILE, n - j))
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


class Bench:
    def __init__(self, root: Path):
        self.root = root
        self.client = LanguageClient("trtlint-bench", "1")
        self.latest: dict[str, list] = {}
        self.event = asyncio.Event()

        @self.client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diags(params: T.PublishDiagnosticsParams):
            self.latest[params.uri] = list(params.diagnostics)
            self.event.set()

        @self.client.feature(T.CLIENT_REGISTER_CAPABILITY)
        def on_register(params):
            return None

    def uri(self, rel: str) -> str:
        return (self.root / rel).as_uri()

    def has(self, rel: str, code: str, line1: int) -> bool:
        return any(d.code == code and d.range.start.line + 1 == line1 for d in self.latest.get(self.uri(rel), []))

    async def wait(self, pred, timeout: float = 120.0) -> float:
        end = time.perf_counter() + timeout
        while not pred():
            self.event.clear()
            left = end - time.perf_counter()
            if left <= 0:
                raise TimeoutError("no matching diagnostics")
            try:
                await asyncio.wait_for(self.event.wait(), left)
            except asyncio.TimeoutError:
                pass
        return time.perf_counter()


async def run(args) -> int:
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="trtlint-lsp-bench-"))
    root = tmp / "proj"
    if root.exists():
        shutil.rmtree(root)
    make_project(root, args.plugins)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    b = Bench(root)
    cmd = [sys.executable, "-m", "trtlint", "lsp", "--debounce-ms", str(args.debounce_ms)] + (["--log-file", args.log] if args.log else [])
    t0 = time.perf_counter()
    await b.client.start_io(*cmd, env=env, cwd=str(root))
    await b.client.initialize_async(
        T.InitializeParams(
            capabilities=T.ClientCapabilities(),
            root_uri=root.as_uri(),
            initialization_options={"diagnosticMode": "push", **({"jobs": args.jobs} if args.jobs else {})},
        )
    )
    b.client.initialized(T.InitializedParams())
    py = "tensorrt_edgellm/onnx/translations_0.py"
    cpp = "cpp/plugins/p0Plugin/p0Plugin.cpp"
    py_text = (root / py).read_text()
    cpp_text = (root / cpp).read_text()
    py_lines = py_text.splitlines(keepends=True)
    py_line = next(k for k, l in enumerate(py_lines) if "P0Plugin(" in l)  # 0-based
    cpp_line = next(k for k, l in enumerate(cpp_text.splitlines()) if 'kNAME{"P0Plugin"}' in l)
    for rel, text, lang in ((py, py_text, "python"), (cpp, cpp_text, "cpp")):
        b.client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri=b.uri(rel), language_id=lang, version=1, text=text)))
    # the project has no findings: wait for the first check to finish (a pull request waits for it)
    await b.client.text_document_diagnostic_async(T.DocumentDiagnosticParams(T.TextDocumentIdentifier(b.uri(py))))
    t_ready = time.perf_counter() - t0
    print(f"project: {args.plugins} plugins, {sum(1 for _ in root.rglob('*') if _.is_file())} files; "
          f"server start + initial index: {t_ready:.2f} s (cold, no cache)")
    version = {py: 1, cpp: 1}

    def change(rel: str, line0: int, col: int, old: str, new: str) -> None:
        version[rel] += 1
        b.client.text_document_did_change(
            T.DidChangeTextDocumentParams(
                T.VersionedTextDocumentIdentifier(uri=b.uri(rel), version=version[rel]),
                [T.TextDocumentContentChangePartial(range=T.Range(T.Position(line0, col), T.Position(line0, col + len(old))), text=new)],
            )
        )

    results: dict[str, list[float]] = {"python": [], "cpp": []}
    pcol = py_lines[py_line].index("P0Plugin(")
    ccol = cpp_text.splitlines()[cpp_line].index('"P0Plugin"')
    for _ in range(args.rounds):
        for what in ("python", "cpp"):
            for forward in (True, False):
                if what == "python":
                    old, new = ("P0Plugin", "P0Plugn") if forward else ("P0Plugn", "P0Plugin")
                    t = time.perf_counter()
                    change(py, py_line, pcol, old, new)
                    done = await b.wait(lambda f=forward: b.has(py, "TRT101", py_line + 1) == f)
                else:
                    old, new = ('"P0Plugin"', '"P0PluginX"') if forward else ('"P0PluginX"', '"P0Plugin"')
                    t = time.perf_counter()
                    change(cpp, cpp_line, ccol, old, new)
                    done = await b.wait(lambda f=forward: b.has(py, "TRT101", py_line + 1) == f)
                results[what].append((done - t) * 1000)
    await b.client.shutdown_async(None)
    b.client.exit(None)
    await b.client.stop()
    print(f"edit -> published diagnostics (debounce {args.debounce_ms} ms included), {args.rounds * 2} edits each:")
    for what, xs in results.items():
        xs = sorted(xs)
        p90 = xs[max(0, int(round(0.9 * len(xs))) - 1)]
        print(f"  {what:6s} edit: median {statistics.median(xs):6.0f} ms   p90 {p90:6.0f} ms   max {xs[-1]:6.0f} ms")
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--plugins", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--debounce-ms", type=int, default=100)
    ap.add_argument("--keep", help="generate the project in DIR and keep it")
    ap.add_argument("--log", help="the server writes its log to FILE")
    ap.add_argument("--jobs", type=int, help="extraction processes for the initial index (default: cores)")
    args = ap.parse_args()
    return asyncio.run(run(args))


if __name__ == "__main__":
    raise SystemExit(main())
