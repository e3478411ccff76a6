"""`trtlint confirm`: repro folders, recipes, subprocess isolation, skipped statuses, output formats.

TensorRT cannot be installed on these machines (only its bindings wheel is available),
so the TensorRT-dependent end of each recipe is tested up to that boundary: the generated models pass
onnx.checker, the generated scripts compile and, run here, report `skipped` themselves; tests that need
TensorRT are skipped with a reason when it is absent. The TRT401 recipe needs no TensorRT and runs for real on
libraries built here, and the nvcc compile step runs for real against the TensorRT headers when present.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from trtlint.config.settings import load_settings
from trtlint.confirm import ConfirmOptions, confirm_findings
from trtlint.confirm import report as rep
from trtlint.confirm.findings import FindingsError, load_findings
from trtlint.confirm.model import build_model, check_model, io_from_config, io_from_model, load_plugin_config, parse_spec
from trtlint.confirm.recipes import DEFAULT_BY_CODE, RECIPES, recipe_for
from trtlint.confirm.runner import Environment, probe_environment, run_script
from trtlint.confirm.scripts import BODIES, render
from trtlint.pipeline.run import run

from .helpers import check_project, write_project

FIXTURE = Path(__file__).parent / "fixtures" / "oss_mini"
TRT_INCLUDE = Path("/work/repos/trt/include")
NO_TRT = Environment(None, 0, "No module named 'tensorrt'")


@pytest.fixture(scope="module")
def oss():
    return run(load_settings(FIXTURE), jobs=1, use_cache=False)


def _by_code(results):
    return {r.finding.code: r for r in results}


# --- recipes are declared with the rules ------------------------------------------------------------------


def test_recipes_declared_on_rules_and_keyed_by_code():
    from trtlint.checks.registry import find_rule

    for code, recipe in (("TRT101", "creator-lookup"), ("TRT102", "creator-lookup"), ("TRT103", "attribute-fields"),
                         ("TRT301", "graph-capture"), ("TRT302", "graph-capture"), ("TRT401", "library-symbols")):
        assert find_rule(code).confirm == recipe
        assert recipe_for(code).name == recipe
    # rules written in parallel get their recipe by code as soon as they exist
    assert recipe_for("TRT104").name == "creator-lookup"
    assert recipe_for("TRT202").name == "serialize-roundtrip"
    assert recipe_for("TRT303").name == "graph-capture"
    assert recipe_for("TRT107") is None
    assert set(DEFAULT_BY_CODE.values()) <= set(RECIPES) and set(BODIES) == set(RECIPES)


# --- repro folders on the OSS-shaped fixture ---------------------------------------------------------------


def test_fixture_repro_folders_models_and_skipped_statuses(oss, tmp_path):
    results = confirm_findings(oss.diagnostics, oss.index, ConfirmOptions(out_dir=tmp_path), NO_TRT)
    by = _by_code(results)
    # every finding gets a result (the fixture grows as rules land)
    assert set(by) == {d.code for d in oss.diagnostics}
    assert {"TRT102", "TRT103", "TRT302"} <= set(by)
    assert (by["TRT102"].status, by["TRT102"].reason) == ("skipped", "no tensorrt, no plugin library")
    assert (by["TRT103"].status, by["TRT103"].reason) == ("skipped", "no tensorrt, no plugin library")
    assert (by["TRT302"].status, by["TRT302"].reason) == ("skipped", "no tensorrt, no GPU, no plugin library, no input shapes")
    assert (tmp_path / ".gitignore").read_text().splitlines()[-1] == "*"
    for r in results:
        if r.folder is None:  # no recipe for the rule, or no route to build one from: said, no folder
            assert r.status in ("skipped", "inconclusive") and r.reason
            continue
        names = sorted(p.name for p in r.folder.iterdir())
        assert names == ["README.md", "model.onnx", "repro.py", "result.json"], names
        m = onnx.load(str(r.folder / "model.onnx"))
        check_model(m)
        node = m.graph.node[0]
        assert node.domain == "trtlint.repro"  # emitted in the default domain: moved so the checker accepts it
        assert {o.domain: o.version for o in m.opset_import}["trtlint.repro"] == 1
        saved = json.loads((r.folder / "result.json").read_text())
        assert (saved["status"], saved["reason"]) == (r.status, r.reason)
        assert sum(f.stat().st_size for f in r.folder.iterdir()) < 40_000  # small enough to paste into an issue
    clip = onnx.load(str(by["TRT102"].folder / "model.onnx")).graph.node[0]
    attrs = {a.name: helper.get_attribute_value(a) for a in clip.attribute}
    assert clip.op_type == "Clip_TRT" and attrs["plugin_version"] == b"1" and attrs["plugin_namespace"] == b""
    assert set(attrs) == {"clipMin", "clipMax", "plugin_version", "plugin_namespace"}
    cfg = _config_of(by["TRT103"].folder / "repro.py")
    assert cfg["attribute"] == "bias" and cfg["name"] == "ScaleShift_TRT" and "bias" in cfg["node_attributes"]
    readme = (by["TRT102"].folder / "README.md").read_text()
    assert "python3 repro.py" in readme and "creator-lookup" in readme and "Clip_TRT" in readme


def _config_of(script: Path) -> dict:
    text = script.read_text()
    start = text.index('CONFIG = json.loads(r"""') + len('CONFIG = json.loads(r"""')
    return json.loads(text[start : text.index('""")', start)])


def test_checker_really_checks_custom_domains():
    from trtlint.confirm.model import default_io

    m = build_model("FooPlugin", "trt", {"alpha": 1.0}, default_io())
    check_model(m)
    del m.opset_import[1]  # drop the custom domain's opset import
    with pytest.raises(onnx.checker.ValidationError, match="No opset import for domain 'trt'"):
        check_model(m)


def test_every_recipe_script_compiles_and_reports_skipped_here(tmp_path):
    cfg = {"name": "FooPlugin", "version": "1", "namespace": "", "node_attributes": {"alpha": 1.0}, "attribute": "alpha",
           "field": "alpha", "expect": "x", "plugin_lib": "", "symbols": ["k"], "file": "a.cu", "plugin_class": "Foo", "hot_call": None}
    for recipe in RECIPES:
        text = render(recipe, cfg, title='t """ with quotes', code="TRT000", name="n", where="a:1")
        compile(text, f"{recipe}.py", "exec")
        script = tmp_path / recipe / "repro.py"
        script.parent.mkdir()
        script.write_text(text)
        out = run_script(script, timeout=60)
        assert out.status == "skipped", (recipe, out)
        expected = "the plugin library" if recipe == "library-symbols" else "tensorrt is not installed"
        if recipe != "library-symbols" and _has_tensorrt():
            continue
        assert expected in out.reason, (recipe, out.reason)


def _has_tensorrt() -> bool:
    import importlib.util

    return importlib.util.find_spec("tensorrt") is not None


# --- subprocess isolation ------------------------------------------------------------------------------------


def test_a_crashing_repro_is_reported_not_fatal(tmp_path):
    s = tmp_path / "repro.py"
    s.write_text("import os, signal\nprint('starting')\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    out = run_script(s, timeout=30)
    assert out.status == "inconclusive" and out.reason == "the repro crashed (SIGSEGV)" and out.returncode == -11


def test_a_hanging_repro_is_killed_at_the_timeout(tmp_path):
    s = tmp_path / "repro.py"
    # the hang includes a child process: the whole process group goes
    s.write_text("import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\ntime.sleep(60)\n")
    t0 = time.monotonic()
    out = run_script(s, timeout=1.5)
    assert time.monotonic() - t0 < 10
    assert out.status == "inconclusive" and out.reason == "the repro hung: no result after 1.5 s (killed)"


def test_an_exception_and_a_missing_result_line_are_inconclusive(tmp_path):
    s = tmp_path / "repro.py"
    s.write_text("raise RuntimeError('creator exploded')\n")
    out = run_script(s, timeout=30)
    assert out.status == "inconclusive" and out.reason == "the repro exited with status 1: RuntimeError: creator exploded"
    s.write_text("print('nothing to say')\n")
    assert run_script(s, timeout=30).reason == "the repro exited without a result line"
    s.write_text("print('TRTLINT-CONFIRM-RESULT ' + '{\"status\": \"confirmed\", \"reason\": \"r\", \"details\": {\"a\": 1}}')\n")
    out = run_script(s, timeout=30)
    assert (out.status, out.reason, out.details) == ("confirmed", "r", {"a": 1})


def test_environment_probe_here():
    env = probe_environment()
    assert (env.tensorrt is None) == (not _has_tensorrt())
    assert env.gpus >= 0


# --- statuses when parts of the environment are there ----------------------------------------------------


def test_no_input_shapes_is_its_own_skip_reason_and_config_shapes_lift_it(oss, tmp_path):
    lib = tmp_path / "libfake.so"
    lib.write_bytes(b"\x7fELF")  # a file is enough to pass the presence check; the repro itself judges it
    forged = Environment("10.x (forged for the test)", 1)
    hot = [d for d in oss.diagnostics if d.code == "TRT302"]
    r = confirm_findings(hot, oss.index, ConfirmOptions(out_dir=tmp_path / "a", plugin_lib=lib), forged)[0]
    assert (r.status, r.reason) == ("skipped", "no input shapes")
    cfg = tmp_path / "inputs.toml"
    cfg.write_text('[ScaleShift_TRT]\ninputs = ["float32[2,8]"]\n')
    opts = ConfirmOptions(out_dir=tmp_path / "b", plugin_lib=lib, plugin_config=load_plugin_config(cfg), timeout=60)
    r = confirm_findings(hot, oss.index, opts, forged)[0]
    # all requirements look present, so the repro runs; here it finds no tensorrt itself and says so
    if not _has_tensorrt():
        assert (r.status, r.reason) == ("skipped", "tensorrt is not installed")
    m = onnx.load(str(r.folder / "model.onnx"))
    dims = [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]
    assert dims == [2, 8]


def test_shapes_cut_from_an_exported_model(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, 4, 8])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT16, [1, 4, 8])
    nodes = [
        helper.make_node("Relu", ["x"], ["h"]),
        helper.make_node("FooPlugin", ["h", "w"], ["y"], domain="trt", alpha=0.5),
        helper.make_node("Relu", ["y"], ["z"]),
    ]
    w = helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])
    g = helper.make_graph(nodes, "g", [x], [z], initializer=[w], value_info=[
        helper.make_tensor_value_info("h", TensorProto.FLOAT16, [1, 4, 8]),
        helper.make_tensor_value_info("y", TensorProto.FLOAT16, [1, 4, 8]),
    ])
    path = tmp_path / "exported.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("trt", 1)]), str(path))
    io = io_from_model(path, "FooPlugin", "trt")
    assert [(t.name, t.dtype, t.shape, t.data) for t in io.inputs] == [("h", "float16", [1, 4, 8], None), ("w", "float32", [2], [1.0, 2.0])]
    assert [(t.name, t.dtype, t.shape) for t in io.outputs] == [("y", "float16", [1, 4, 8])]
    assert io.has_shapes and io.node_attrs == {"alpha": 0.5}
    m = build_model("FooPlugin", "trt", io.node_attrs, io)
    check_model(m)
    assert [i.name for i in m.graph.input] == ["h"] and [t.name for t in m.graph.initializer] == ["w"]
    assert io_from_model(path, "BarPlugin") is None


def test_tensor_specs_and_plugin_config_errors(tmp_path):
    assert parse_spec("float16[2, 16, N]", "a").shape == [2, 16, "N"]
    with pytest.raises(ValueError, match="bad tensor spec"):
        parse_spec("complex[2]", "a")
    bad = tmp_path / "c.json"
    bad.write_text('{"Foo": {"inputs": ["float32(2)"]}}')
    with pytest.raises(ValueError, match="bad tensor spec 'float32\\(2\\)'"):
        load_plugin_config(bad)
    io = io_from_config({"Foo": {"inputs": ["int32[3]"]}}, "Foo", "c.json")
    assert io.outputs[0].dtype == "int32" and io.has_shapes


# --- TRT401: the library-symbols recipe runs here for real --------------------------------------------------

_CMAKE = 'file(GLOB_RECURSE PLUGIN_CPP_SRCS "plugins/*.cpp")\nadd_library(plugins SHARED ${PLUGIN_CPP_SRCS})\n'


@pytest.mark.skipif(shutil.which("g++") is None or shutil.which("nm") is None, reason="needs g++ and nm to build a library")
def test_trt401_confirmed_and_not_reproduced_on_built_libraries(tmp_path):
    proj = tmp_path / "proj"
    cu = "extern \"C\" void scaleRowsHost(float* x, int n) { for (int i = 0; i < n; ++i) x[i] *= 2; }\n" \
         "void launchScaleRows(float* x, int n) { scaleRowsHost(x, n); }\n"
    write_project(proj, {
        "cpp/CMakeLists.txt": _CMAKE,
        "cpp/plugins/foo/fooKernel.cu": cu,
        "cpp/plugins/foo/fooPlugin.cpp": "int fooPluginAnchor() { return 1; }\n",
    })
    res = check_project(proj)
    diags = [d for d in res.diagnostics if d.code == "TRT401"]
    assert len(diags) == 1
    # the library the CMake glob builds: the .cpp only
    only_cpp = tmp_path / "libonly_cpp.so"
    subprocess.run(["g++", "-shared", "-fPIC", "-o", str(only_cpp), str(proj / "cpp/plugins/foo/fooPlugin.cpp")], check=True)
    r = confirm_findings(diags, res.index, ConfirmOptions(out_dir=tmp_path / "o1", plugin_lib=only_cpp, timeout=60), NO_TRT)[0]
    assert r.status == "confirmed", r.reason
    assert "none of the 2 functions defined in cpp/plugins/foo/fooKernel.cu is in libonly_cpp.so" in r.reason
    assert r.outcome.details["missing"] == ["scaleRowsHost", "launchScaleRows"]
    assert not (r.folder / "model.onnx").exists()  # no model for a wiring finding
    # the fixed build compiles the .cu too (as C++ here: the file has no device code)
    both = tmp_path / "libboth.so"
    subprocess.run(["g++", "-shared", "-fPIC", "-o", str(both), "-x", "c++", str(proj / "cpp/plugins/foo/fooKernel.cu"),
                    "-x", "none", str(proj / "cpp/plugins/foo/fooPlugin.cpp")], check=True)
    r = confirm_findings(diags, res.index, ConfirmOptions(out_dir=tmp_path / "o2", plugin_lib=both, timeout=60), NO_TRT)[0]
    assert (r.status, r.reason) == ("not-reproduced", "2 of 2 functions defined in cpp/plugins/foo/fooKernel.cu are in the library")
    # and the repro runs on its own, as pasted into an issue
    p = subprocess.run([sys.executable, str(r.folder / "repro.py"), str(only_cpp)], capture_output=True, text=True, timeout=60)
    assert '"status": "confirmed"' in p.stdout


# --- the nvcc compile step against real TensorRT headers ------------------------------------------------------


@pytest.mark.skipif(shutil.which("nvcc") is None or not (TRT_INCLUDE / "NvInfer.h").is_file(),
                    reason="needs nvcc and the TensorRT headers (include/ of NVIDIA/TensorRT at /work/repos/trt)")
def test_nvcc_compiles_flagged_translation_units(oss, tmp_path):
    from trtlint.confirm.compile import compile_tu

    ok = compile_tu(FIXTURE, "plugin/clipPlugin/clipPlugin.cpp", TRT_INCLUDE, timeout=240)
    assert ok.ok, ok.errors
    assert any("ClipPluginCreator::getPluginName" in s for s in ok.symbols)
    write_project(tmp_path, {"plugin/broken/broken.cpp": '#include "NvInfer.h"\nnvinfer1::IPluginV3* p = new nvinfer1::IPluginV3();\n'})
    bad = compile_tu(tmp_path, "plugin/broken/broken.cpp", TRT_INCLUDE, timeout=240)
    assert not bad.ok and any("abstract" in e for e in bad.errors), bad.errors


# --- findings from JSON and SARIF; output formats; CLI ---------------------------------------------------------


def test_findings_round_trip_through_json_and_sarif(oss, tmp_path):
    from trtlint.report import ReportContext, render

    ctx = ReportContext(root=FIXTURE, rules=oss.rules)
    want = [(d.code, d.span.path, d.span.line, d.span.col, d.symbol, d.message) for d in oss.diagnostics]
    for fmt in ("json", "sarif"):
        f = tmp_path / f"f.{fmt}"
        f.write_text(render(fmt, oss.diagnostics, ctx))
        got = [(d.code, d.span.path, d.span.line, d.span.col, d.symbol, d.message) for d in load_findings(f)]
        assert got == want, fmt
    f = tmp_path / "bad.json"
    f.write_text("[1, 2]")
    with pytest.raises(FindingsError, match="expected a JSON object"):
        load_findings(f)


def test_json_and_sarif_confirm_output(oss, tmp_path):
    from trtlint.report import ReportContext

    results = confirm_findings(oss.diagnostics, oss.index, ConfirmOptions(out_dir=tmp_path), NO_TRT)
    data = json.loads(rep.render_json(results, NO_TRT, "0"))
    summary = data["summary"]
    assert summary["confirmed"] == summary["not-reproduced"] == 0  # nothing can run here
    assert summary["inconclusive"] + summary["skipped"] == len(oss.diagnostics)
    assert data["environment"]["tensorrt"] is None
    recipes = {r["finding"]["code"]: r["recipe"] for r in data["results"]}
    assert recipes == {d.code: (recipe_for(d.code).name if recipe_for(d.code) else None) for d in oss.diagnostics}
    assert {k: recipes[k] for k in ("TRT102", "TRT103", "TRT302")} == {
        "TRT102": "creator-lookup", "TRT103": "attribute-fields", "TRT302": "graph-capture"}
    sarif = json.loads(rep.render_sarif(results, NO_TRT, ReportContext(root=FIXTURE, rules=oss.rules)))
    res = sarif["runs"][0]["results"]
    n = len(oss.diagnostics)
    assert all(r["properties"]["confirm"]["status"] in ("skipped", "inconclusive") for r in res) and len(res) == n
    assert all(r["properties"]["confirm"]["repro"] for r in res if r["properties"]["confirm"]["status"] == "skipped" and recipe_for(r["ruleId"]) is not None)
    text = rep.render_text(results, NO_TRT)
    assert "TRT102 skipped (no tensorrt, no plugin library)" in text and f"{n} finding(s): 0 confirmed" in text


def test_unmatched_and_recipe_less_findings(oss, tmp_path):
    from dataclasses import replace

    d = next(d for d in oss.diagnostics if d.code == "TRT102" and d.span.path.endswith(".py"))
    moved = replace(d, span=replace(d.span, line=999))
    other = replace(d, code="TRT107", name="creator-in-model-file")
    r1, r2 = confirm_findings([moved, other], oss.index, ConfirmOptions(out_dir=tmp_path), NO_TRT)
    assert r1.status == "inconclusive" and "does not match the current source" in r1.reason
    assert r2.status == "skipped" and r2.reason.startswith("no confirm recipe for TRT107")


def test_cli_confirm(oss, tmp_path, capsys):
    from trtlint.cli.commands import main
    from trtlint.report import ReportContext, render

    sarif = tmp_path / "f.sarif"
    sarif.write_text(render("sarif", oss.diagnostics, ReportContext(root=FIXTURE, rules=oss.rules)))
    rc = main(["confirm", str(FIXTURE), "--from", str(sarif), "--no-cache", "-j", "1", "--select", "TRT1",
               "--out", str(tmp_path / "out"), "--format", "json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    data = json.loads(out.out)
    assert sorted(r["finding"]["code"] for r in data["results"]) == sorted(d.code for d in oss.diagnostics if d.code.startswith("TRT1"))
    assert {"TRT102", "TRT103"} <= {r["finding"]["code"] for r in data["results"] if r["repro"]}
    assert len([p for p in (tmp_path / "out").iterdir() if p.is_dir()]) == sum(1 for r in data["results"] if r["repro"])
    assert main(["confirm", str(FIXTURE), "--from", str(tmp_path / "missing.json")]) == 2
    assert "missing.json: no such file or directory" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["confirm", str(FIXTURE), "--from", str(bad), "--no-cache", "-j", "1"]) == 2
    assert "bad.json: not JSON" in capsys.readouterr().err


# --- with TensorRT installed --------------------------------------------------------------------------------


@pytest.mark.tensorrt
def test_creator_lookup_repro_against_tensorrts_own_plugin_library(tmp_path):
    trt = pytest.importorskip("tensorrt", reason="tensorrt is not installed here (TensorRT cannot be installed on the development machines: only its bindings wheel is available)")
    import glob
    import os

    libs = glob.glob(os.path.join(os.path.dirname(trt.__file__), "..", "tensorrt_libs", "libnvinfer_plugin.so*"))
    if not libs:
        pytest.skip("libnvinfer_plugin is not next to the tensorrt package")
    from trtlint.confirm.model import default_io

    folder = tmp_path / "r"
    folder.mkdir()
    cfg = {"name": "Clip_TRT", "version": "999", "namespace": "", "node_attributes": {}, "expect": "no such version",
           "plugin_lib": libs[0], "project_creator": ["Clip_TRT", "1", ""]}
    onnx.save(build_model("Clip_TRT", "trt", {"plugin_version": "999"}, default_io()), str(folder / "model.onnx"))
    (folder / "repro.py").write_text(render("creator-lookup", cfg, title="t", code="TRT102", name="n", where="a:1"))
    out = run_script(folder / "repro.py", timeout=300)
    assert out.status == "confirmed", out


# --- the scripts' decision logic, with a stand-in tensorrt module -------------------------------------------
# TensorRT cannot run here. This stand-in implements only the registry calls the two registry recipes make
# (get_plugin_registry().get_creator / all_creators, creator.field_names, ILogger) so that their branches
# (confirmed / not-reproduced / inconclusive) run; it is no evidence of API compatibility with TensorRT.

_FAKE_TRT = '''
import json, os
class ILogger:
    def __init__(self): pass
class _Field:
    def __init__(self, name): self.name, self.type = name, "PluginFieldType.FLOAT32"
class _Creator:
    def __init__(self, name, version, ns, fields):
        self.name, self.plugin_version, self.plugin_namespace = name, version, ns
        self.field_names = [_Field(f) for f in fields]
class _Registry:
    def __init__(self):
        self.all_creators = [_Creator(*c) for c in json.loads(os.environ["FAKE_TRT_CREATORS"])]
    def get_creator(self, name, version, namespace=""):
        return next((c for c in self.all_creators if (c.name, c.plugin_version, c.plugin_namespace) == (name, version, namespace)), None)
_REG = _Registry()
def get_plugin_registry(): return _REG
'''


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ to build a library to dlopen")
def test_registry_recipes_decide_with_a_stand_in_tensorrt(oss, tmp_path):
    if _has_tensorrt():
        pytest.skip("the real tensorrt is installed: the stand-in would shadow it")
    fake = tmp_path / "fake" / "tensorrt"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(_FAKE_TRT)
    lib = tmp_path / "libp.so"
    (tmp_path / "p.cpp").write_text("int pluginAnchor() { return 0; }\n")
    subprocess.run(["g++", "-shared", "-fPIC", "-o", str(lib), str(tmp_path / "p.cpp")], check=True)
    results = confirm_findings([d for d in oss.diagnostics if d.code in ("TRT102", "TRT103")], oss.index,
                               ConfirmOptions(out_dir=tmp_path / "out", plugin_lib=lib), Environment(None, 0))
    by = _by_code(results)
    import os

    def run_with(creators, code):
        env = {"PYTHONPATH": str(tmp_path / "fake"), "FAKE_TRT_CREATORS": json.dumps(creators)}
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            return run_script(by[code].folder / "repro.py", [str(lib)], timeout=60)
        finally:
            for k, v in old.items():
                os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)

    clip_v2 = ["Clip_TRT", "2", "", ["clipMin", "clipMax"]]
    scale = ["ScaleShift_TRT", "1", "", ["scale", "shift"]]
    # TRT102: the route asks for Clip_TRT version "1"; the library registers version "2"
    out = run_with([clip_v2, scale], "TRT102")
    assert out.status == "confirmed", out
    assert out.reason.startswith("get_creator('Clip_TRT', '1', '') returns None")
    assert out.details["registered_same_name"] == [["Clip_TRT", "2", ""]]
    assert out.details["onnx_parse"].startswith("not run: no GPU")
    assert run_with([["Clip_TRT", "1", "", []], scale], "TRT102").status == "not-reproduced"
    out = run_with([["Other", "1", "", []]], "TRT102")
    assert out.status == "inconclusive" and "is it the library built from this source?" in out.reason
    # TRT103: the node sets 'bias'; the creator declares scale and shift only
    out = run_with([clip_v2, scale], "TRT103")
    assert out.status == "confirmed" and "the value is dropped" in out.reason, out
    assert run_with([clip_v2, ["ScaleShift_TRT", "1", "", ["scale", "shift", "bias"]]], "TRT103").status == "not-reproduced"
    assert run_with([clip_v2], "TRT103").status == "inconclusive"


def test_plugin_and_hot_path_findings_of_rules_written_in_parallel_resolve(oss, tmp_path):
    """TRT202/TRT303 land from other work: a finding inside a plugin method, or one whose symbol has another
    shape but names the plugin's enqueue as a related location, still finds its plugin."""
    from dataclasses import replace

    from trtlint.confirm.subject import resolve
    from trtlint.base.diagnostics import Related

    hot = next(d for d in oss.diagnostics if d.code == "TRT302")
    enq = next(r for r in hot.related if "enqueue" in r.message)
    other = replace(hot, code="TRT303", symbol="something-else", related=(Related(enq.span, "enqueue"),))
    s = resolve(other, oss.index)
    assert (s.kind, s.name, s.plugin_class) == ("hotpath", "ScaleShift_TRT", "nvinfer1::plugin::ScaleShiftPlugin")
    ser = replace(hot, code="TRT202", span=enq.span, symbol="", message="field 'scale' is read but never serialized")
    s = resolve(ser, oss.index)
    assert (s.kind, s.name, s.flagged_attr) == ("plugin", "ScaleShift_TRT", "scale")
    r = confirm_findings([ser], oss.index, ConfirmOptions(out_dir=tmp_path), NO_TRT)[0]
    assert (r.recipe, r.status, r.reason) == ("serialize-roundtrip", "skipped", "no tensorrt, no GPU, no plugin library, no input shapes")
    cfg = _config_of(r.folder / "repro.py")
    assert (cfg["field"], cfg["value"], cfg["changed_value"]) == ("scale", 1.0, 3.0)
    changed = onnx.load(str(r.folder / "model_field_changed.onnx"))
    check_model(changed)
    assert {a.name: helper.get_attribute_value(a) for a in changed.graph.node[0].attribute}["scale"] == 3.0


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ for the build command")
def test_build_cmd_builds_the_library_first(tmp_path, capsys):
    from trtlint.cli.commands import main

    proj = tmp_path / "proj"
    write_project(proj, {
        "cpp/CMakeLists.txt": _CMAKE,
        "cpp/plugins/foo/fooKernel.cu": "void launchFoo(float* x) { x[0] = 1; }\n",
        "cpp/plugins/foo/fooPlugin.cpp": "int fooPluginAnchor() { return 1; }\n",
    })
    (proj / ".git").mkdir()
    rc = main(["confirm", str(proj), "--no-cache", "-j", "1", "--out", str(tmp_path / "out"),
               "--build-cmd", "mkdir -p build && g++ -shared -fPIC -o build/libplugins.so cpp/plugins/foo/fooPlugin.cpp"])
    out = capsys.readouterr()
    assert rc == 1, out.err
    assert "using the library the build wrote: " in out.err and "libplugins.so" in out.err
    assert "cpp/plugins/foo/fooKernel.cu:1: TRT401 confirmed" in out.out
    rc = main(["confirm", str(proj), "--no-cache", "-j", "1", "--out", str(tmp_path / "out2"), "--build-cmd", "exit 3"])
    out = capsys.readouterr()
    assert rc == 0 and "the build command failed (exit 3)" in out.err
    assert "TRT401 skipped (no plugin library)" in out.out


def test_recipe_scripts_use_no_undefined_names():
    """The TensorRT paths of the scripts cannot run here: at least every global name they use must exist."""
    import builtins
    import symtable

    for recipe in RECIPES:
        text = render(recipe, {}, title="t", code="c", name="n", where="w")
        top = symtable.symtable(text, f"{recipe}.py", "exec")
        defined = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()} | set(dir(builtins))
        defined |= {"__file__", "__name__"}
        missing = set()

        def walk(t):
            for s in t.get_symbols():
                if s.is_referenced() and (s.is_global() or t.get_type() == "module") and s.get_name() not in defined:
                    missing.add(s.get_name())
            for c in t.get_children():
                walk(c)

        walk(top)
        assert not missing, (recipe, missing)


def test_a_repro_that_cannot_be_prepared_does_not_stop_the_others(oss, tmp_path):
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(b"\x08\x07not a model")
    d = [x for x in oss.diagnostics if x.code in ("TRT102", "TRT103") and x.span.path.endswith(".py")]
    results = confirm_findings(d, oss.index, ConfirmOptions(out_dir=tmp_path / "o", model=bad), NO_TRT)
    assert [r.status for r in results] == ["inconclusive", "inconclusive"]
    assert all(r.reason.startswith("the exported model could not be read") for r in results)
    # anything else that goes wrong while preparing one repro (here: a file where its folder should go) is
    # reported on that finding, and the next one goes on
    d = [x for x in oss.diagnostics if x.code == "TRT102" and x.span.path.endswith(".py")] * 2
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "001-TRT102-Clip_TRT").write_text("in the way")
    results = confirm_findings(d, oss.index, ConfirmOptions(out_dir=tmp_path / "p", run=False), NO_TRT)
    assert results[0].status == "inconclusive" and results[0].reason.startswith("the repro could not be prepared: FileExistsError")
    assert (results[1].status, results[1].reason) == ("skipped", "no tensorrt, no plugin library")
