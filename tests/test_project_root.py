"""Which project a run checks, and which of its findings the paths given select (issue 20, "silent passes").

The project is found from each path upwards (a config file, a repository root, a profile's markers, then the
current directory when it holds the path); the whole project is indexed and the paths only select the findings
reported: those located under them, or related to them. Each test runs the real command line on a copy of the
miniature Edge-LLM tree (no git unless the test says so) and compares with what the whole-tree run reports.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from trtlint.config.project import ProjectRootError, project_root

from .helpers import write_project
from .test_cli import FIXTURE, trtlint

TRANSLATIONS = "tensorrt_edgellm/onnx/dynamo_translations.py"


@pytest.fixture
def proj(tmp_path):
    p = tmp_path / "el"
    shutil.copytree(FIXTURE, p)
    return p.resolve()


def _findings(r: subprocess.CompletedProcess) -> list[tuple]:
    assert "Traceback" not in r.stderr
    data = json.loads(r.stdout)
    return sorted((d["code"], d["location"]["path"], d["location"]["line"]) for d in data["diagnostics"])


def _whole(proj: Path) -> list[dict]:
    r = trtlint("check", ".", "--format", "json", "--no-cache", cwd=proj)
    assert r.returncode == 1, r.stderr
    return json.loads(r.stdout)["diagnostics"]


def _under(diags: list[dict], prefix: str) -> list[tuple]:
    def inside(path: str) -> bool:
        return path == prefix or path.startswith(prefix + "/")

    return sorted(
        (d["code"], d["location"]["path"], d["location"]["line"])
        for d in diags
        if inside(d["location"]["path"]) or any(inside(x["location"]["path"]) for x in d["related"])
    )


@pytest.mark.parametrize("vcs", ["no git", "git"])
def test_a_subdirectory_reports_what_the_whole_tree_reports_under_it(proj, tmp_path, vcs):
    if vcs == "git":
        if shutil.which("git") is None:
            pytest.skip("git is not installed")
        subprocess.run(["git", "init", "-q"], cwd=proj, check=True)
    expected = _under(_whole(proj), "tensorrt_edgellm")
    # the cross-directory findings: a Python translation against a C++ creator in cpp/
    assert ("TRT103", TRANSLATIONS, 17) in expected and ("TRT101", TRANSLATIONS, 32) in expected
    # from outside the project (the root is found by the profile's markers, or the repository root) ...
    r = trtlint("check", str(proj / "tensorrt_edgellm"), "--format", "json", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert _findings(r) == expected
    # the project line, then (no text report) what was analysed and the TensorRT release judged against
    assert r.stderr.splitlines()[0] == f"trtlint: project {proj} (profile edgellm, detected)"
    assert [x.split(" ", 1)[0] for x in r.stderr.splitlines()[1:]] in (["analysed", "TensorRT"], ["analysed", "no"])
    project = json.loads(r.stdout)["project"]
    assert project["root"] == str(proj) and project["profile"] == "edgellm" and project["profile_source"] == "detected"
    assert project["paths"] == ["tensorrt_edgellm"] and project["files_selected"] == 7
    # ... and from inside the subdirectory
    r = trtlint("check", ".", "--format", "json", cwd=proj / "tensorrt_edgellm")
    assert _findings(r) == expected
    # the cache goes to the project root, never into the directory given
    assert (proj / ".trtlint_cache").is_dir()
    assert not list((proj / "tensorrt_edgellm").rglob(".trtlint_cache"))


def test_a_file_outside_git_is_judged_against_the_whole_project(proj, tmp_path):
    expected = _under(_whole(proj), TRANSLATIONS)
    assert [f for f in expected if f[0] == "TRT103"] == [("TRT103", TRANSLATIONS, 17)]
    for cwd, path in ((proj, TRANSLATIONS), (tmp_path, str(proj / TRANSLATIONS))):
        r = trtlint("check", path, "--format", "json", "--no-cache", cwd=cwd)
        assert r.returncode == 1, r.stderr
        assert _findings(r) == expected
        assert r.stderr.startswith(f"trtlint: project {proj} (profile edgellm, detected)")


def test_stdin_is_checked_against_the_whole_project(proj, tmp_path):
    expected = _under(_whole(proj), TRANSLATIONS)
    text = (proj / TRANSLATIONS).read_text()
    r = trtlint("check", "-", "--stdin-filename", TRANSLATIONS, "--format", "json", "--no-cache", cwd=proj, input=text)
    assert r.returncode == 1, r.stderr
    assert _findings(r) == expected
    # the unsaved text is what is checked: the misspelled name fixed in the buffer only
    edited = text.replace("_trt_edgellm.FooPlugn(", "_trt_edgellm.FooPlugin(")
    r = trtlint(
        "check", "-", "--stdin-filename", str(proj / TRANSLATIONS), "--format", "json", "--no-cache", cwd=tmp_path, input=edited
    )
    assert _findings(r) == [f for f in expected if f[0] != "TRT101"]
    assert ("TRT103", TRANSLATIONS, 17) in _findings(r)


def test_an_onnx_model_checked_from_the_project_root_sees_the_creators(tmp_path):
    """A project with no config, no repository and no profile markers: the current directory is the project."""
    from trtlint.checks.onnx.unresolved_plugin_node import UnresolvedPluginNode

    example = UnresolvedPluginNode.INVALID[3]  # a creator in namespace 'foo'; the model's node sets none
    assert set(example["files"]) == {"cpp/plugins/foo/fooPlugin.cpp", "models/foo.onnx"}
    write_project(tmp_path, example["files"])
    expected = _under(_whole(tmp_path), "models/foo.onnx")
    assert ("TRT501", "models/foo.onnx", 1) in expected
    r = trtlint("check", "models/foo.onnx", "--format", "json", "--no-cache", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert _findings(r) == expected
    assert r.stderr.splitlines()[0] == f"trtlint: project {tmp_path.resolve()} (profile generic, detected)"
    assert [x.split(" ", 1)[0] for x in r.stderr.splitlines()[1:]] in (["analysed", "TensorRT"], ["analysed", "no"])


def test_a_loose_file_says_no_project_was_found(tmp_path):
    write_project(tmp_path, {"loose/t.py": "x = 1\n", "loose/other.py": "y = 2\n"})
    r = trtlint("check", str(tmp_path / "loose" / "t.py"), "--format", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["summary"]["files_checked"] == 1
    assert "no project found: only the files given are read" in r.stderr
    assert not (tmp_path / "loose" / ".trtlint_cache").exists()


@pytest.mark.parametrize(
    "args, config, message",
    [
        (["--select", "TRT1O1"], None, "--select: no rule matches 'TRT1O1'; did you mean 'TRT101' (plugin-name-mismatch)?"),
        (["--extend-select", "TRT1,TRT1O1"], None, "--extend-select: no rule matches 'TRT1O1'; did you mean 'TRT101'"),
        (["--ignore", "plugin-nme-mismatch"], None, "did you mean 'plugin-name-mismatch' (TRT101)?"),
        ([], 'select = ["TRT1O1"]\n', "trtlint.toml:1: 'select': no rule matches 'TRT1O1'; did you mean 'TRT101'"),
        ([], 'fail-level = "error"\nextend-select = ["TRT1O1"]\n', "trtlint.toml:2: 'extend-select': no rule matches 'TRT1O1'"),
        ([], 'ignore = ["TRT9"]\n', "trtlint.toml:1: 'ignore': no rule matches 'TRT9' (see `trtlint rules`)"),
    ],
)
def test_an_unknown_selector_is_a_usage_error_with_the_closest_rule(proj, args, config, message):
    if config is not None:
        (proj / "trtlint.toml").write_text(config)
    r = trtlint("check", ".", "--no-cache", *args, cwd=proj)
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr and r.stdout == "" and "Traceback" not in r.stderr


def test_rule_command_suggests_by_edit_distance():
    from trtlint.checks.registry import closest_selectors, edit_distance

    # TRT1O1 is one confusable character from TRT101; TRT111/TRT121/... are one full substitution away
    assert [r.code for r in closest_selectors("TRT1O1")] == ["TRT101"]
    assert edit_distance("TRT1O1", "TRT101") < edit_distance("TRT1O1", "TRT111") < edit_distance("TRT1O1", "TRT211")
    r = trtlint("rule", "TRT1O1")
    assert r.returncode == 2
    assert "no rule 'TRT1O1'; did you mean 'TRT101' (plugin-name-mismatch)?" in r.stderr
    r = trtlint("rule", "TRT3011")
    assert "did you mean 'TRT301'" in r.stderr


def test_config_names_the_root_and_a_missing_path_is_exit_2(proj, tmp_path):
    r = trtlint("config", str(tmp_path / "nonexistent"))
    assert r.returncode == 2 and "nonexistent: no such file or directory" in r.stderr and r.stdout == ""
    r = trtlint("config", str(proj / "tensorrt_edgellm"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert f"root: {proj}\n" in r.stdout
    assert "root found by: markers of the edgellm profile" in r.stdout
    assert "profile: edgellm (detected)" in r.stdout


def test_an_empty_folder_or_an_unread_file_says_so(proj, tmp_path):
    work = tmp_path / "work"
    (work / "empty").mkdir(parents=True)
    r = trtlint("check", "empty", "--no-cache", cwd=work)
    assert r.returncode == 0, r.stderr
    assert "All checks passed" not in r.stdout
    assert r.stdout.startswith("Nothing checked: the project holds no file trtlint reads")
    assert "trtlint: warning: empty: holds no file trtlint reads" in r.stderr
    (proj / "NOTES.md").write_text("notes\n")
    r = trtlint("check", "NOTES.md", "--no-cache", cwd=proj)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Nothing checked: no file trtlint reads under the paths given (34 files in the project")
    assert "trtlint: warning: NOTES.md: not a file trtlint reads" in r.stderr
    # a path that does not exist is a usage error
    r = trtlint("check", "nope.py", "--no-cache", cwd=proj)
    assert r.returncode == 2 and "nope.py: no such file or directory" in r.stderr


def test_sarif_and_json_name_the_project_and_paths_are_relative_to_its_root(proj, tmp_path):
    from .sarif_schema import validate_sarif

    r = trtlint("check", str(proj / "tensorrt_edgellm" / "onnx"), "--format", "sarif", "--no-cache", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    sarif = json.loads(r.stdout)
    run = sarif["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == proj.as_uri() + "/"
    assert run["properties"]["project"] == {
        "root": str(proj),
        "root_reason": "markers of the edgellm profile",
        "profile": "edgellm",
        "profile_source": "detected",
        "paths": ["tensorrt_edgellm/onnx"],
        "files_selected": 4,
        "excluded_by_profile": [],  # (the edgellm profile excludes 3rdParty/**; the tree has none)
    }
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"] for res in run["results"] for loc in res["locations"]}
    assert f"{TRANSLATIONS}" in uris
    validate_sarif(sarif)


def test_related_findings_modes(proj):
    """The C++ creator given alone: the Python findings whose other side it is are selected through their
    related location (all), or not (none); `new` needs git to compare with, and says so outside a work tree."""
    cpp = "cpp/plugins/fooPlugin/fooPlugin.cpp"
    r = trtlint("check", cpp, "--format", "json", cwd=proj)
    related = [f for f in _findings(r) if f[1] == TRANSLATIONS]
    assert ("TRT103", TRANSLATIONS, 17) in related
    r = trtlint("check", cpp, "--format", "json", "--related-findings", "none", cwd=proj)
    assert all(f[1] == cpp for f in _findings(r))
    r = trtlint("check", cpp, "--format", "json", "--related-findings", "new", cwd=proj)
    assert [f for f in _findings(r) if f[1] == TRANSLATIONS] == related
    assert "--related-findings new: not a git work tree" in r.stderr


def test_project_root_rules(tmp_path):
    write_project(
        tmp_path,
        {
            "repo/.git/HEAD": "",
            "repo/pyproject.toml": '[tool.trtlint]\nfail-level = "error"\n',
            "repo/svc/trtlint.toml": 'ignore = ["TRT3"]\n',
            "repo/svc/a.py": "",
            "repo/other/pyproject.toml": "[project]\nname = 'x'\n",  # no [tool.trtlint]: not a config
            "repo/other/b.py": "",
            "plain/x/y.py": "",
        },
    )
    (tmp_path / "repo2" / ".git").mkdir(parents=True)
    (tmp_path / "repo2" / "inner").mkdir()
    (tmp_path / "repo2" / "inner" / "trtlint.toml").write_text("")
    repo = (tmp_path / "repo").resolve()
    # a nested config belongs to the project of the config above it (up to the repository root)
    assert project_root([repo / "svc" / "a.py"]).root == repo
    assert project_root([repo / "svc"]).reason == "config file pyproject.toml"
    assert project_root([repo / "other" / "b.py"]).root == repo
    assert project_root([repo / "svc" / "a.py", repo / "other"]).root == repo
    inner = project_root([tmp_path / "repo2" / "inner"])
    assert inner.root == (tmp_path / "repo2" / "inner").resolve() and inner.reason == "config file trtlint.toml"
    # the current directory when it holds the path; else a directory is its own project, files are loose
    plain = (tmp_path / "plain").resolve()
    assert project_root([Path("x/y.py")], cwd=plain).root == plain
    alone = project_root([plain / "x" / "y.py"], cwd=repo)
    assert alone.root == plain / "x" and not alone.is_project
    assert project_root([plain / "x"], cwd=repo).root == plain / "x"
    with pytest.raises(ProjectRootError, match="different projects"):
        project_root([repo / "svc" / "a.py", tmp_path / "repo2" / "inner"])
