"""No execution: checking a tree (and serving it in the editor) never runs its code.

The tree is hostile: every Python file writes a canary when imported (including modules named like
trtlint's own dependencies, which ``python -m trtlint`` run inside the tree would find first on sys.path),
the CMake lists run ``execute_process``/``add_custom_command``, and the git repository's config names an
fsmonitor hook and a clean filter that would write canaries if git ran them.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from .helpers import check_json, trtlint

CANARY_MODULES = [
    "setup.py", "conftest.py", "pkg/__init__.py", "pkg/test_plugin.py", "pkg/translations.py",
    # names trtlint (or its dependencies) import: run with cwd=tree, `python -m` puts the tree first on sys.path
    "yaml.py", "libcst.py", "rich.py", "pathspec.py", "jsonschema.py", "clang.py", "onnx.py", "numpy.py",
    "typing_extensions.py", "sitecustomize.py", "usercustomize.py", "hashlib.py", "json.py", "pygls.py", "lsprotocol.py",
]


def hostile_tree(root: Path) -> Path:
    """A tree whose code, if anything ran it, leaves files named ``canary*`` in ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for rel in CANARY_MODULES:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(
            "import pathlib\n"
            f"pathlib.Path({str(root)!r}, 'canary_' + {rel.replace('/', '_')!r}).write_text('ran')\n"
            "import torch_tensorrt\n"
            "@torch_tensorrt.dynamo.conversion.dynamo_tensorrt_converter(torch.ops.aten.relu.default)\n"
            "def conv(ctx, target, args, kwargs, name):\n    return args[0]\n"
            "def test_x():\n    assert True\n",
            encoding="utf-8",
        )
    (root / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(p)\n"
        f"execute_process(COMMAND touch {root}/canary_cmake_execute_process)\n"
        f"add_custom_command(OUTPUT x COMMAND touch {root}/canary_cmake_custom)\n"
        "add_library(p SHARED p.cpp)\n",
        encoding="utf-8",
    )
    (root / "p.cpp").write_text(
        '#include "../../../../../../../../../../proc/self/fd/0"\n'  # an include that escapes: never an exec
        "class FooPlugin : public nvinfer1::IPluginV3 {};\n",
        encoding="utf-8",
    )
    (root / "broken.py").write_bytes(b"x = '\xff'\n")  # a TRT001: proof the tree was read
    (root / "tests.yml").write_text("tests:\n  - !!python/object/apply:os.system ['touch canary_yaml']\n", encoding="utf-8")
    if shutil.which("git"):
        git = ["git", "-C", str(root)]
        subprocess.run(git + ["init", "-q"], check=True)
        subprocess.run(git + ["config", "core.fsmonitor", f"touch {root}/canary_git_fsmonitor; echo"], check=True)
        subprocess.run(git + ["config", "filter.evil.clean", f"touch {root}/canary_git_filter; cat"], check=True)
        subprocess.run(git + ["config", "filter.evil.smudge", "cat"], check=True)
        subprocess.run(git + ["config", "filter.evil.required", "false"], check=True)
        (root / ".gitattributes").write_text("* filter=evil\n", encoding="utf-8")
        (root / ".git" / "hooks" / "post-index-change").write_text(f"#!/bin/sh\ntouch {root}/canary_git_hook\n")
        (root / ".git" / "hooks" / "post-index-change").chmod(0o755)
        # tracked files (added without the filter, which only a run of git by trtlint would invoke)
        subprocess.run(git + ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "filter.evil.clean=cat",
                              "add", "-A"], check=True)
        for c in root.glob("canary*"):  # git add above must not count
            c.unlink()
    return root


def canaries(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("canary*"))


def test_trtlint_check_runs_nothing_of_the_tree(tmp_path):
    root = hostile_tree(tmp_path / "proj")
    assert canaries(root) == []
    rc, diags, err = check_json(root)
    assert rc in (0, 1), err
    # the tree was read: the undecodable file, and the include that would read the process's stdin
    assert sorted((d["location"]["path"], d["location"]["line"]) for d in diags if d["code"] == "TRT001") == [("broken.py", 1), ("p.cpp", 1)]
    # run from inside the tree, as `python -m trtlint` (the tree's directory is first on sys.path)
    r = trtlint("check", ".", "--no-cache", "--no-progress", "-j", "2", "--format", "json", cwd=root,
                env={"PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode in (0, 1), r.stderr
    assert '"broken.py"' in r.stdout
    assert canaries(root) == []


def test_trtlint_lsp_session_runs_nothing_of_the_tree(tmp_path):
    pytest.importorskip("pygls")
    from .lsp_raw import RawLsp

    root = hostile_tree(tmp_path / "proj")
    with RawLsp(root, cwd=root) as lsp:
        lsp.initialize()
        doc = root / "pkg" / "translations.py"
        lsp.open(doc, doc.read_text())
        assert lsp.pull(doc)["result"]["kind"] == "full"
        lsp.change(doc, doc.read_text() + "\nimport os\nos.system('touch canary_edit')\n", version=2)
        assert lsp.pull(doc)["result"]["kind"] == "full"
        lsp.save(doc)
        cpp = root / "p.cpp"
        lsp.open(cpp, cpp.read_text(), lang="cpp")
        assert lsp.pull(cpp)["result"]["kind"] == "full"
        assert lsp.alive()
    assert canaries(root) == []
