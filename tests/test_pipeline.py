"""Discovery, suppressions, per-file ignores, config and bad input through the real pipeline."""

from __future__ import annotations

from pathlib import Path

import pytest

from trtlint.checks.examples.contract import creator_cpp, onnxscript_py
from trtlint.config.settings import ConfigError, load_settings
from trtlint.index.discover import discover
from trtlint.pipeline.run import run
from trtlint.config.packs import load_packs

from .helpers import check_project, write_project

CREATOR = {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin")}


def test_gitignore_include_exclude_and_symlinks(tmp_path):
    write_project(
        tmp_path,
        {
            ".gitignore": "build/\n*.gen.py\n",
            "sub/.gitignore": "local.py\n",
            "a.py": "",
            "x.gen.py": "",
            "build/b.py": "",
            "sub/local.py": "",
            "sub/kept.py": "",
            "third_party/t.py": "",
            "notes.txt": "",
        },
    )
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "link.py").symlink_to(tmp_path / "a.py")
    import subprocess

    subprocess.run(["git", "-C", str(tmp_path), "init", "-q"], check=True)  # untracked files: .gitignore applies
    d = discover(tmp_path, exclude=["third_party/"])
    assert [f.rel for f in d.files] == ["a.py", "sub/kept.py"]
    reasons = dict(d.skipped)
    assert "symbolic link" in reasons["loop"] and "symbolic link" in reasons["link.py"]
    d2 = discover(tmp_path, include=["sub/**"], respect_gitignore=False)
    assert [f.rel for f in d2.files] == ["sub/kept.py", "sub/local.py"]
    import shutil

    shutil.rmtree(tmp_path / ".git")  # a source archive: nothing says what was tracked, .gitignore is not applied
    d3 = discover(tmp_path, exclude=["third_party/"])
    assert [f.rel for f in d3.files] == ["a.py", "build/b.py", "sub/kept.py", "sub/local.py", "x.gen.py"]


def test_a_virtual_environment_of_any_name_is_not_the_project(tmp_path):
    # a folder holding pyvenv.cfg is a Python virtual environment (installed packages: thousands of files of
    # other projects), whatever its name, as `.venv` is; a folder merely named env/ with code is the project's
    write_project(tmp_path, {"a.py": "", "v/pyvenv.cfg": "home = /usr/bin\n", "v/lib/python3.11/site-packages/x/m.py": "",
                             "env/tool.py": ""})
    assert [f.rel for f in discover(tmp_path).files] == ["a.py", "env/tool.py"]


def test_inline_suppressions_same_line_and_line_above(tmp_path):
    py = (
        "import onnxscript\n"
        '_p = onnxscript.values.Opset("trt_edgellm", 1)\n'
        "def a(x):\n"
        "    return _p.FooPlugn(x)  # trtlint: ignore[TRT101]\n"
        "def b(x):\n"
        "    # trtlint: ignore[plugin-name-mismatch]\n"
        "    return _p.FooPlugn(x)\n"
        "def c(x):\n"
        "    return _p.FooPlugn(x)  # trtlint: ignore[TRT103]\n"
        "def d(x):\n"
        "    return _p.FooPlugn(x)\n"
    )
    write_project(tmp_path, {**CREATOR, "py/t.py": py})
    res = check_project(tmp_path, select=["TRT101"])
    assert [(d.span.path, d.span.line) for d in res.diagnostics] == [("py/t.py", 9), ("py/t.py", 11)]


def test_cpp_suppression_comment(tmp_path):
    from trtlint.checks.examples.hotpath import plugin_cpp

    write_project(tmp_path, {"p/foo.cpp": plugin_cpp("    cudaStreamSynchronize(stream); // trtlint: ignore[TRT302]")})
    assert check_project(tmp_path, select=["TRT302"]).diagnostics == []


def test_per_file_ignores_and_severity_override(tmp_path):
    write_project(tmp_path, {**CREATOR, "py/t.py": onnxscript_py("FooPlugn"), "tools/u.py": onnxscript_py("FooPlugn")})
    res = check_project(
        tmp_path,
        select=["TRT1"],
        config={"per-file-ignores": {"tools/**": ["contract"]}, "severity": {"TRT101": "warning"}},
    )
    # "contract" is not a rule selector: nothing is ignored by it, and TRT003 would flag it in a config file
    assert sorted(d.span.path for d in res.diagnostics) == ["py/t.py", "tools/u.py"]
    res = check_project(
        tmp_path, select=["TRT1"], config={"per-file-ignores": {"tools/**": ["TRT101"]}, "severity": {"TRT101": "warning"}}
    )
    assert [(d.span.path, d.severity.value) for d in res.diagnostics] == [("py/t.py", "warning")]


def test_pyproject_config_and_profile_detection(tmp_path):
    write_project(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "x"\n[tool.trtlint]\nprofile = "generic"\nignore = ["TRT301"]\n',
            "cpp/plugins/.keep": "",
            "tensorrt_edgellm/__init__.py": "",
        },
    )
    s = load_settings(tmp_path)
    assert s.profile == "generic" and s.ignore == ["TRT301"]
    assert s.origins["ignore"].endswith("pyproject.toml")
    res = run(s, jobs=1, use_cache=False)
    assert res.profile.name == "generic"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert run(load_settings(tmp_path), jobs=1, use_cache=False).profile.name == "edgellm"


def test_bad_config_values_name_file_and_key(tmp_path):
    write_project(tmp_path, {"trtlint.toml": 'max-call-depth = "deep"\n'})
    with pytest.raises(ConfigError, match=r"trtlint.toml:1: 'max-call-depth' must be a non-negative integer"):
        load_settings(tmp_path)
    write_project(tmp_path, {"trtlint.toml": 'profile = "nope"\n'})
    with pytest.raises(ConfigError, match="unknown profile 'nope'"):
        run(load_settings(tmp_path), jobs=1, use_cache=False)


def test_bad_rule_pack_names_file_and_key(tmp_path):
    pack = tmp_path / "extra.yaml"
    pack.write_text("version: 1\nallocating:\n  - {name: myAlloc}\n")
    with pytest.raises(ConfigError, match=r"extra.yaml: key 'allocating.0': 'what' is a required property"):
        load_packs([pack])
    pack.write_text("version: 1\nallocating: [\n")
    with pytest.raises(ConfigError, match=r"extra.yaml: line \d+: invalid YAML"):
        load_packs([pack])


def test_user_rule_pack_extends_tables(tmp_path):
    from trtlint.checks.examples.hotpath import plugin_cpp

    write_project(
        tmp_path,
        {
            "rules/mine.yaml": "version: 1\nallocating:\n  - {name: poolGrab, what: pool allocation}\n",
            "p/foo.cpp": plugin_cpp("    poolGrab(1024);", "void* poolGrab(int n);"),
        },
    )
    res = check_project(tmp_path, select=["TRT301"], config={"rule-packs": ["rules/mine.yaml"]})
    assert [d.message.split(" (")[0] for d in res.diagnostics] == ["poolGrab"]


def test_bad_input_gives_trt001_and_the_run_goes_on(tmp_path):
    write_project(
        tmp_path,
        {
            **CREATOR,
            "py/t.py": onnxscript_py("FooPlugn"),
            "py/broken.py": "import tensorrt as trt\ndef f(:\n    trt.PluginField(\"a\")\n",
            "py/latin1.py": b"# caf\xe9 get_creator\n",
            "py/binary.py": b"\x00\x01\x02PluginField\x00",
            "cpp/plugins/bad/bad.cpp": b"\xff\xfe IPluginV3 garbage \x00\x00",
            "cpp/plugins/bad/syntax.cpp": "class X : public IPluginV3 { void f( { ;;; \n",
            "CMakeLists.txt": 'file(GLOB_RECURSE S "cpp/*.cpp"\n',  # unterminated
        },
    )
    res = check_project(tmp_path)
    got = {(d.code, d.span.path) for d in res.diagnostics}
    assert ("TRT101", "py/t.py") in got  # the run went on
    for p in ("py/broken.py", "py/latin1.py", "py/binary.py", "cpp/plugins/bad/bad.cpp"):
        assert ("TRT001", p) in got, (p, got)
    msgs = {d.span.path: d.message for d in res.diagnostics if d.code == "TRT001"}
    assert "UTF-8" in msgs["py/latin1.py"] and "binary" in msgs["py/binary.py"]


def test_parallel_extraction_is_deterministic(tmp_path):
    fixture = Path(__file__).parent / "fixtures" / "edgellm_mini"
    a = run(load_settings(fixture), jobs=1, use_cache=False).diagnostics
    b = run(load_settings(fixture), jobs=2, use_cache=False).diagnostics
    assert [d.to_dict() for d in a] == [d.to_dict() for d in b]


def test_tracked_files_are_never_gitignored(tmp_path):
    """Found on TensorRT Edge-LLM: its .gitignore has `build*` and `onnx*`, which match the tracked
    experimental/builder/ and tensorrt_edgellm/onnx/ directories; git itself ignores only untracked files."""
    import subprocess

    write_project(
        tmp_path,
        {".gitignore": "build*\nonnx*\n", "experimental/builder/ops/backend.py": "", "pkg/onnx/t.py": "", "build/out.py": ""},
    )
    git = ["git", "-C", str(tmp_path), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-f", ".gitignore", "experimental", "pkg"], check=True)
    subprocess.run(git + ["commit", "-qm", "x"], check=True)
    write_project(tmp_path, {"experimental/builder/ops/new_untracked.py": "", "pkg/notignored.py": ""})
    rels = [f.rel for f in discover(tmp_path).files]
    assert rels == ["experimental/builder/ops/backend.py", "pkg/notignored.py", "pkg/onnx/t.py"]


def test_compile_commands_flags_are_used(tmp_path):
    """An include directory known only from compile_commands.json resolves the creator's name constant."""
    import json

    write_project(
        tmp_path,
        {
            "third/include/realnames.h": '#pragma once\n#define MY_PLUGIN_NAME "FromBuildFlags"\n',
            "plugins/foo.cpp": (
                "#include <NvInferRuntime.h>\n"
                '#include "realnames.h"\n'
                "using namespace nvinfer1;\n"
                "class FooCreator : public IPluginCreatorV3One\n"
                "{\n"
                "public:\n"
                "    char const* getPluginName() const noexcept override { return MY_PLUGIN_NAME; }\n"
                '    char const* getPluginVersion() const noexcept override { return "1"; }\n'
                "};\n"
                "REGISTER_TENSORRT_PLUGIN(FooCreator);\n"
            ),
        },
    )
    res = check_project(tmp_path, select=["TRT101"])
    assert [c.plugin_name for c in res.index.creators] == [None]  # the header is not found without the flags
    (tmp_path / "compile_commands.json").write_text(
        json.dumps(
            [
                {
                    "directory": str(tmp_path),
                    "command": f"c++ -std=c++17 -I{tmp_path / 'third/include'} -c plugins/foo.cpp -o foo.o",
                    "file": "plugins/foo.cpp",
                }
            ]
        )
    )
    res = check_project(tmp_path, select=["TRT101"])
    assert [c.plugin_name for c in res.index.creators] == ["FromBuildFlags"]


def test_feature_macros_and_defines_select_the_compiled_code(tmp_path):
    """Edge-LLM guards real enqueue bodies with CUTE_DSL_<GROUP>_ENABLED, which its build defines; without it
    only the fallback stub is analysed (GatedDeltaNetPlugin::enqueue had 0 calls, 339 with it)."""
    from trtlint.checks.examples.hotpath import plugin_cpp

    body = "#ifdef CUTE_DSL_FOO_ENABLED\n    cudaStreamSynchronize(stream);\n#else\n    return -1;\n#endif"
    write_project(tmp_path, {"cpp/plugins/foo/foo.cpp": plugin_cpp(body), "tensorrt_edgellm/__init__.py": ""})
    res = check_project(tmp_path, select=["TRT302"])
    assert res.profile.name == "edgellm"
    assert [(d.span.path, d.span.line) for d in res.diagnostics] == [("cpp/plugins/foo/foo.cpp", 16)]
    res = check_project(tmp_path, select=["TRT302"], config={"profile": "generic"})
    assert res.diagnostics == []
    res = check_project(tmp_path, select=["TRT302"], config={"profile": "generic", "defines": ["CUTE_DSL_FOO_ENABLED=1"]})
    assert [(d.span.path, d.span.line) for d in res.diagnostics] == [("cpp/plugins/foo/foo.cpp", 16)]


def test_feature_macros_reach_the_workers_after_the_python_files_are_queued(tmp_path):
    """The Python files go to the (real, spawned) workers before the scan of the C++ files finds the feature
    macros; the C++ units are then parsed with them, and the entries the workers write are the ones the next
    run looks up: a C++ define does not change a Python file's cache key."""
    from trtlint.store.cache import context_key
    from trtlint.checks.examples.hotpath import plugin_cpp
    from trtlint.config.settings import Settings
    from trtlint.pipeline.run import run
    from trtlint.frontends import ExtractContext

    body = "#ifdef CUTE_DSL_FOO_ENABLED\n    cudaStreamSynchronize(stream);\n#else\n    return -1;\n#endif"
    files = {"cpp/plugins/foo/foo.cpp": plugin_cpp(body), "tensorrt_edgellm/__init__.py": ""}
    for i in range(6):
        files[f"tensorrt_edgellm/ops/op{i}.py"] = f"import torch\n\ndef op{i}(x):\n    return torch.ops.trt.op{i}(x)\n"
    write_project(tmp_path, files)
    s = Settings(root=tmp_path.resolve())
    s.select = ["TRT302"]
    first = run(s, jobs=2, use_cache=True)
    assert [(d.span.path, d.span.line) for d in first.diagnostics] == [("cpp/plugins/foo/foo.cpp", 16)]
    assert "CUTE_DSL_FOO_ENABLED" in first.ctx.defines
    assert first.parsed_kinds == {"cpp": 1, "python": 7}
    second = run(s, jobs=2, use_cache=True)
    assert second.files_parsed == 0 and second.diagnostics == first.diagnostics
    base = ExtractContext(root=tmp_path)
    with_define = ExtractContext(root=tmp_path, defines=("CUTE_DSL_FOO_ENABLED",))
    assert context_key(base, cpp=False) == context_key(with_define, cpp=False)
    assert context_key(base) != context_key(with_define)


def test_shipped_rule_packs_are_valid_against_the_pack_schema():
    """The shipped packs are not validated at run time (that costs a jsonschema import per run): here."""
    from trtlint.config.packs import load_pack_file, shipped_dir

    packs = sorted(shipped_dir().glob("*.yaml"))
    assert packs
    for p in packs:
        assert load_pack_file(p, validate=True)["version"] == 1


# -- one check path: the editor's Session and `trtlint check` build and check the index the same way ------------

_FIXTURES = Path(__file__).parent / "fixtures"


def _keys(diags) -> list[tuple]:
    return [(d.code, str(d.severity), d.span.path, d.span.line, d.span.col, d.message) for d in diags]


def _session_vs_run(root: Path) -> tuple[list, list]:
    from trtlint.editor.session import Session

    settings = load_settings(root)
    ran = run(settings, None, jobs=1, use_cache=False)
    session = Session(root, jobs=1, use_cache=False)
    session.load()
    return _keys(ran.diagnostics), _keys(session.check())


_CLEAN_FIXTURES = {"corpus_mini"}


@pytest.mark.parametrize("name", sorted(p.name for p in _FIXTURES.iterdir() if p.is_dir()))
def test_session_check_after_load_matches_run_on_fixtures(name, tmp_path):
    """``Session.check()`` right after ``Session.load()`` gives what ``run()`` gives (the editor and the CLI
    build the index from the same inputs: suppressions, config selectors and globs, preview scans)."""
    import shutil

    root = tmp_path / name
    shutil.copytree(_FIXTURES / name, root)
    ran, checked = _session_vs_run(root)
    # corpus_mini is clean by design (the corpus harness's seeded defects start from a tree with no finding)
    assert ran or name in _CLEAN_FIXTURES, "the fixture has findings"
    assert checked == ran


def test_session_check_after_load_matches_run_with_unused_per_file_ignores(tmp_path):
    """An unused per-file-ignores entry (TRT002) is reported by the editor as by ``trtlint check``."""
    write_project(
        tmp_path,
        {
            **CREATOR,
            "py/translate.py": onnxscript_py("FooPlugn"),
            "trtlint.toml": '[per-file-ignores]\n"nothing/**" = ["TRT101"]\n',
        },
    )
    ran, checked = _session_vs_run(tmp_path)
    assert any(k[0] == "TRT002" for k in ran)
    assert checked == ran
