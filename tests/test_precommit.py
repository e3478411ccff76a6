"""The pre-commit hooks of .pre-commit-hooks.yaml, run by the real pre-commit in a temporary git repository.

The hook definitions (file filters, serial run) are taken from the manifest as they are; only the way the
command is found changes: `language: system` running this checkout's trtlint with the test's Python, instead of
`language: python`, which would make pre-commit build a virtualenv and install trtlint from an index. One test
(the last) runs the manifest exactly as shipped through `pre-commit try-repo`: pre-commit installs trtlint
itself, as every user of the hook gets it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from trtlint.checks.examples.contract import creator_cpp, onnxscript_py

pytest.importorskip("pre_commit")

REPO = Path(__file__).resolve().parents[1]
MANIFEST = REPO / ".pre-commit-hooks.yaml"
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def test_manifest_is_valid_for_pre_commit():
    from pre_commit.clientlib import load_manifest

    hooks = {h["id"]: h for h in load_manifest(str(MANIFEST))}
    assert set(hooks) == {"trtlint", "trtlint-onnx", "trtlint-fix"}
    assert hooks["trtlint"]["entry"] == "trtlint check --related-findings=new" and hooks["trtlint"]["require_serial"]
    assert set(hooks["trtlint"]["types_or"]) == {"c++", "c", "cuda", "python", "yaml", "cmake", "makefile"}
    from identify.identify import tags_from_filename  # pre-commit's own file typing: a Makefile edit runs the hook

    assert "makefile" in tags_from_filename("Makefile") and "makefile" in tags_from_filename("rules.mk")
    assert hooks["trtlint-onnx"]["files"] == r"\.onnx$"
    assert hooks["trtlint-onnx"]["entry"] == "trtlint check --related-findings=new"
    assert hooks["trtlint-fix"]["entry"] == "trtlint check --fix --related-findings=new"


def _git(repo: Path, *args: str, env=None, check=True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=check, timeout=600)


def _local_config(hook_ids: list[str]) -> str:
    hooks = []
    for h in yaml.safe_load(MANIFEST.read_text()):
        if h["id"] not in hook_ids:
            continue
        h = dict(h)
        assert h["entry"].startswith("trtlint ")
        h["entry"] = f"{sys.executable} -m trtlint {h['entry'][len('trtlint '):]} --no-cache"
        h["language"] = "system"
        h.pop("minimum_pre_commit_version", None)
        hooks.append(h)
    return yaml.safe_dump({"repos": [{"repo": "local", "hooks": hooks}]}, sort_keys=False)


@pytest.fixture
def repo(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    files = {
        "cpp/plugins/foo/fooPlugin.cpp": creator_cpp(),
        "py/translate.py": onnxscript_py("FooPlugin"),
        "py/other.py": "x = 1\n",
        ".pre-commit-config.yaml": _local_config(["trtlint", "trtlint-onnx"]),
    }
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    _git(repo, "init", "-q", "-b", "main", env=env)
    _git(repo, "add", "-A", env=env)
    _git(repo, "commit", "-q", "-m", "initial", env=env)
    r = subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    repo_env = (repo, env)
    return repo_env


def test_a_commit_that_introduces_a_drift_fails_and_a_clean_one_passes(repo):
    repo, env = repo
    # a clean change to the Python side: the hook runs on it and passes
    p = repo / "py/translate.py"
    p.write_text(p.read_text() + "\n\ndef helper():\n    return 1\n")
    _git(repo, "add", "py/translate.py", env=env)
    r = _git(repo, "commit", "-m", "a clean change", env=env, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "trtlint" in r.stdout + r.stderr and "Passed" in r.stdout + r.stderr
    # the C++ side renames the plugin; the Python file still emits the old name. Only the C++ file is in the
    # commit: the finding is located in the Python file, and its other side is the committed C++ file.
    c = repo / "cpp/plugins/foo/fooPlugin.cpp"
    c.write_text(c.read_text().replace('kNAME{"FooPlugin"}', 'kNAME{"FooPluginV2"}'))
    _git(repo, "add", "cpp/plugins/foo/fooPlugin.cpp", env=env)
    r = _git(repo, "commit", "-m", "rename the plugin", env=env, check=False)
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    assert "Failed" in out
    assert "py/translate.py:7" in out and "TRT101" in out and "'FooPlugin'" in out and "FooPluginV2" in out
    assert _git(repo, "log", "--oneline", env=env).stdout.count("\n") == 2  # the drift was not committed
    # committed anyway (--no-verify): the drift is now in the project. A commit of an unrelated file passes (the
    # finding is neither in it nor has its other side there) ...
    _git(repo, "commit", "-q", "--no-verify", "-m", "rename the plugin anyway", env=env)
    o = repo / "py/other.py"
    o.write_text("x = 2\n")
    _git(repo, "add", "py/other.py", env=env)
    r = _git(repo, "commit", "-m", "unrelated", env=env, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    # ... and one that touches the Python side fails
    p.write_text(p.read_text() + "\n# touched\n")
    _git(repo, "add", "py/translate.py", env=env)
    r = _git(repo, "commit", "-m", "touch the translation", env=env, check=False)
    assert r.returncode != 0 and "py/translate.py:7" in r.stdout + r.stderr


def test_onnx_hook_runs_on_onnx_files_only(repo):
    repo, env = repo
    import onnx
    from onnx import TensorProto, helper

    node = helper.make_node("Relu", ["x"], ["y"])
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])]
    )
    onnx.save(helper.make_model(graph), str(repo / "model.onnx"))
    _git(repo, "add", "model.onnx", env=env)
    r = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--verbose"], cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    lines = {line.split(".")[0].strip(): line for line in out.splitlines() if "...." in line}
    assert lines["trtlint (ONNX models)"].endswith("Passed")
    assert "no files to check" in lines["trtlint"]


def test_an_old_finding_whose_other_side_is_committed_does_not_block_but_a_new_one_does(repo):
    """--related-findings=new (the hooks' entry): a commit touching only the other side (a related location) of
    a finding that was already there passes; one whose change to that side creates a finding fails."""
    repo, env = repo
    p = repo / "py/translate.py"
    p.write_text(p.read_text().replace("alpha=1.0", "alpha=1.0, beta=2.0"))  # TRT103: no field 'beta'
    _git(repo, "add", "py/translate.py", env=env)
    _git(repo, "commit", "-q", "--no-verify", "-m", "a drift committed anyway", env=env)
    # a comment in the C++ creator: the TRT103 in py/translate.py (related: this file) was there before
    c = repo / "cpp/plugins/foo/fooPlugin.cpp"
    c.write_text(c.read_text() + "\n// a comment\n")
    _git(repo, "add", "cpp/plugins/foo/fooPlugin.cpp", env=env)
    r = _git(repo, "commit", "-m", "comment in the creator", env=env, check=False)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "TRT103" not in out
    # renaming the plugin in the creator creates a TRT101 in py/translate.py: the commit is refused
    c.write_text(c.read_text().replace('kNAME{"FooPlugin"}', 'kNAME{"FooPluginV2"}'))
    _git(repo, "add", "cpp/plugins/foo/fooPlugin.cpp", env=env)
    r = _git(repo, "commit", "-m", "rename the plugin", env=env, check=False)
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    assert "py/translate.py:7" in out and "TRT101" in out and "FooPluginV2" in out
    # a new file in the commit counts as empty at HEAD: a finding related to it is new
    (repo / "cpp/plugins/foo/fooPlugin.cpp").write_text(c.read_text().replace('kNAME{"FooPluginV2"}', 'kNAME{"FooPlugin"}'))
    _git(repo, "add", "cpp/plugins/foo/fooPlugin.cpp", env=env)
    _git(repo, "commit", "-q", "-m", "rename back", env=env, check=False)
    (repo / "cpp/plugins/bar").mkdir(parents=True)
    (repo / "cpp/plugins/bar/barPlugin.cpp").write_text(creator_cpp("BarPlugin", cls="BarPluginCreator"))
    (repo / "py/bar.py").write_text(onnxscript_py("BarPlugin", attrs="gamma=1.0"))
    _git(repo, "add", "py/bar.py", env=env)
    _git(repo, "commit", "-q", "--no-verify", "-m", "a translation before its creator", env=env)
    _git(repo, "add", "cpp/plugins/bar/barPlugin.cpp", env=env)
    r = _git(repo, "commit", "-m", "the creator, without the field", env=env, check=False)
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    assert "py/bar.py:7" in out and "TRT103" in out and "'gamma'" in out


# ------------------------------------------------------------------ the hook as shipped, installed by pre-commit
def _is_git_checkout(path: Path) -> bool:
    r = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=path, capture_output=True, text=True)
    return r.returncode == 0 and Path(r.stdout.strip()).resolve() == path.resolve()


@pytest.mark.skipif(not _is_git_checkout(REPO), reason="pre-commit try-repo needs this checkout as a git repository")
def test_the_shipped_hook_installed_by_pre_commit_reports_a_drift_and_passes_a_clean_tree(tmp_path):
    """`pre-commit try-repo` with the manifest exactly as shipped (`language: python`): pre-commit builds its own
    virtualenv and pip-installs this repository into it (not editable, dependencies from the package index),
    as it does for every user of the hook. (This checkout's uncommitted changes are part of what it installs.)"""
    proj = tmp_path / "proj"
    proj.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    (proj / "cpp/plugins/foo").mkdir(parents=True)
    (proj / "py").mkdir()
    (proj / "cpp/plugins/foo/fooPlugin.cpp").write_text(creator_cpp())
    (proj / "py/translate.py").write_text(onnxscript_py("FooPlugn"))  # the drift
    _git(proj, "init", "-q", "-b", "main", env=env)
    _git(proj, "add", "-A", env=env)
    _git(proj, "commit", "-q", "-m", "initial", env=env)

    def try_repo() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "trtlint", "--all-files"],
                              cwd=proj, env=env, capture_output=True, text=True, timeout=900)

    r = try_repo()
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "internal error" not in out and "Traceback" not in out, out
    assert "trtlint...." in out and "Failed" in out, out
    assert "py/translate.py:7:12: error[TRT101] plugin-name-mismatch: ONNX node 'trt_edgellm::FooPlugn' names plugin 'FooPlugn'" in out, out
    (proj / "py/translate.py").write_text(onnxscript_py("FooPlugin"))
    _git(proj, "commit", "-q", "-am", "fix the name", env=env)
    r = try_repo()
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Passed" in r.stdout, r.stdout
