"""LSP latency: from a one-line edit to the published diagnostics, on a synthetic 100-plugin project.

    python bench/lsp_edit.py [--plugins 100] [--rounds 10] [--debounce-ms 100] [--keep DIR]

Generates an Edge-LLM-shaped project (per plugin: a C++ plugin + creator whose enqueue calls a launcher in a
.cu file; ONNX translations in ten Python files; one direct-route table), starts `trtlint lsp` over stdio with
a pygls client, waits for the initial diagnostics, then measures, per round, the wall time from sending a
one-line ``textDocument/didChange`` to receiving the ``publishDiagnostics`` that reflects it:

- python: a plugin name in a translation file is misspelt (a finding appears there), then restored (it clears);
- cpp: the plugin name constant in a C++ plugin file is renamed (a finding appears in the Python translation
  file: cross-file), then restored.

The figure includes the server's debounce (the server's default unless ``--debounce-ms``). Prints median / p90 / max.

Real tree (issue 36):

    python bench/lsp_edit.py --tree TREE [--file REL] [--rounds 10] [--base REV]

copies TREE to a temporary directory (never writes it; its ``.trtlint_cache`` is left out), starts the server
there, waits for the initial index (cold: the copy has no cache), opens REL (default: the first plugin ``.cpp``
whose ``enqueue`` has a body), then per round types ``cudaMalloc`` into ``enqueue`` (one line after its opening
brace), waits for the TRT301 enqueue-allocation finding on that line, undoes the edit and waits for it to clear.
Prints median and p90 of both directions. With ``--base REV`` the same is measured for that revision of trtlint
(``git archive`` of it, as ``bench/compare_revisions.py`` exports it), each revision with its own server over its
own copy of the tree, alternating per round in this one process, and both figures are printed side by side.
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
from typing import Optional

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


def enqueue_edit(text: str) -> tuple[int, str]:
    """(0-based line, new line) for a cudaMalloc typed into the first ``enqueue`` definition with a body."""
    import re

    lines = text.splitlines(keepends=True)
    for m in re.finditer(r"\benqueue\s*\(", text):
        depth, i = 0, m.end() - 1
        while i < len(text):  # the parameter list
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        j = i
        while j < len(text) and text[j] not in "{;":
            j += 1
        if j < len(text) and text[j] == "{":
            k = text.count("\n", 0, j)  # the line of the opening brace
            return k + 1, "    void* trtlint_bench_p = nullptr; cudaMalloc(&trtlint_bench_p, 64);\n"
    raise SystemExit("no enqueue definition with a body in the file")


def pick_plugin_file(root: Path) -> str:
    for p in sorted(root.rglob("*.cpp")):
        if "plugin" not in p.as_posix().lower() or ".trtlint_cache" in p.parts:
            continue
        try:
            enqueue_edit(p.read_text(encoding="utf-8", errors="replace"))
        except SystemExit:
            continue
        return p.relative_to(root).as_posix()
    raise SystemExit("no plugin .cpp with an enqueue body in the tree")


class TreeRun:
    """One server (one revision of trtlint) over its own copy of a real tree."""

    def __init__(self, label: str, code: Path, tree: Path, rel: str, debounce_ms: Optional[int], jobs: Optional[int]):
        self.label, self.code, self.root, self.rel = label, code, tree, rel
        self.debounce_ms, self.jobs = debounce_ms, jobs
        self.b = Bench(tree)
        self.version = 1
        self.text = (tree / rel).read_text(encoding="utf-8", errors="replace")
        self.line0, self.new = enqueue_edit(self.text)
        self.times: list[float] = []
        self.log: Optional[str] = None

    async def start(self) -> float:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(self.code) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        cmd = [sys.executable, "-m", "trtlint", "lsp"]
        if self.debounce_ms is not None:
            cmd += ["--debounce-ms", str(self.debounce_ms)]
        if self.log:
            cmd += ["--log-file", self.log]
        t0 = time.perf_counter()
        await self.b.client.start_io(*cmd, env=env, cwd=str(self.root))
        await self.b.client.initialize_async(T.InitializeParams(
            capabilities=T.ClientCapabilities(), root_uri=self.root.as_uri(),
            initialization_options={"diagnosticMode": "push", **({"jobs": self.jobs} if self.jobs else {})}))
        self.b.client.initialized(T.InitializedParams())
        self.b.client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
            uri=self.b.uri(self.rel), language_id="cpp", version=1, text=self.text)))
        await self.b.client.text_document_diagnostic_async(T.DocumentDiagnosticParams(
            T.TextDocumentIdentifier(self.b.uri(self.rel))))
        return time.perf_counter() - t0

    def _change(self, forward: bool) -> None:
        self.version += 1
        if forward:
            rng, text = T.Range(T.Position(self.line0, 0), T.Position(self.line0, 0)), self.new
        else:
            rng, text = T.Range(T.Position(self.line0, 0), T.Position(self.line0 + 1, 0)), ""
        self.b.client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=self.b.uri(self.rel), version=self.version),
            [T.TextDocumentContentChangePartial(range=rng, text=text)]))

    async def round(self) -> None:
        for forward in (True, False):
            t = time.perf_counter()
            self._change(forward)
            done = await self.b.wait(lambda f=forward: self.b.has(self.rel, "TRT301", self.line0 + 1) == f)
            self.times.append((done - t) * 1000)

    async def stop(self) -> None:
        await self.b.client.shutdown_async(None)
        self.b.client.exit(None)
        await self.b.client.stop()


def _figures(xs: list[float]) -> str:
    xs = sorted(xs)
    p90 = xs[max(0, int(round(0.9 * len(xs))) - 1)]
    return f"median {statistics.median(xs):6.0f} ms   p90 {p90:6.0f} ms   max {xs[-1]:6.0f} ms"


async def run_tree(args) -> int:
    from compare_revisions import copy_tree, export  # bench/ is on sys.path when this script runs

    tmp = Path(tempfile.mkdtemp(prefix="trtlint-lsp-tree-"))
    try:
        src = Path(args.tree).resolve()
        sides = [("head", REPO)]
        if args.base:
            label = export(args.base, tmp / "base-code")
            sides.insert(0, (f"base {label}", tmp / "base-code"))
        runs = []
        for label, code in sides:
            copy = tmp / f"tree-{len(runs)}" / src.name
            shutil.copytree(src, copy, symlinks=True, ignore=shutil.ignore_patterns(".trtlint_cache", ".git"))
            rel = args.file or pick_plugin_file(copy)
            runs.append(TreeRun(label, code, copy, rel, args.debounce_ms, args.jobs))
            if args.log:
                runs[-1].log = f"{args.log}.{len(runs) - 1}"
        print(f"tree: {src} (copied), file: {runs[0].rel}, line {runs[0].line0 + 1}: {runs[0].new.strip()}")
        for r in runs:
            print(f"  {r.label}: server start + initial index {await r.start():.2f} s (cold)")
        await asyncio.sleep(2.0)  # the extraction worker warms up after the load
        for r in runs:  # one unmeasured round each (the first parse of the unit in the worker)
            await r.round()
            r.times.clear()
        for _ in range(args.rounds):
            for r in runs:  # alternating: both see the same machine
                await r.round()
        for r in runs:
            await r.stop()
        deb = f"debounce {args.debounce_ms} ms" if args.debounce_ms is not None else "the server's default debounce"
        print(f"cudaMalloc typed into enqueue -> TRT301 published, and undone -> cleared ({deb} included), "
              f"{args.rounds} rounds:")
        for r in runs:
            print(f"  {r.label:40s} {_figures(r.times)}")
        try:
            print(f"load average: {os.getloadavg()[0]:.2f} (1 min)")
        except OSError:
            pass
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", help="a real tree: measure cudaMalloc typed into enqueue of a plugin file (copied first)")
    ap.add_argument("--file", help="with --tree: the project-relative plugin file (default: the first with an enqueue body)")
    ap.add_argument("--base", help="with --tree: also measure this git revision of trtlint, alternating, side by side")
    ap.add_argument("--plugins", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--debounce-ms", type=int, default=None, help="the server's --debounce-ms (default: its default)")
    ap.add_argument("--keep", help="generate the project in DIR and keep it")
    ap.add_argument("--log", help="the server writes its log to FILE")
    ap.add_argument("--jobs", type=int, help="extraction processes for the initial index (default: cores)")
    args = ap.parse_args()
    if args.tree:
        return asyncio.run(run_tree(args))
    if args.debounce_ms is None:
        args.debounce_ms = 100
    return asyncio.run(run(args))


if __name__ == "__main__":
    raise SystemExit(main())
