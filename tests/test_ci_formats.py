"""CI-facing outputs of `trtlint check`: several reports in one run, GitLab/JUnit/SARIF files, text from stdin,
and the progress display (only on a terminal, never in machine formats)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from .test_cli import FIXTURE, snapshot, trtlint

TRANSLATIONS = "tensorrt_edgellm/onnx/dynamo_translations.py"

from tests.test_fixture_project import EXPECTED  # noqa: E402

N = len(EXPECTED)  # the Edge-LLM-shaped fixture's findings (it grows as rules land)


def test_several_outputs_in_one_run(tmp_path):
    out = tmp_path / "reports"
    r = trtlint(
        "check", str(FIXTURE), "--no-cache", "--format", "text", "--format", f"sarif:{out}/trtlint.sarif",
        "--format", f"junit:{out}/junit.xml", "--format", f"gitlab:{out}/gl-code-quality.json",
    )
    assert r.returncode == 1, r.stderr
    assert "error[TRT101] plugin-name-mismatch" in r.stdout and f"Found {N} problems" in r.stdout
    sarif = json.loads((out / "trtlint.sarif").read_text())
    results = sarif["runs"][0]["results"]
    assert len(results) == N
    rules = {d["id"]: d for d in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert "## What it does" in rules["TRT101"]["help"]["markdown"]  # the rule's documentation, whatever the URL
    junit = ET.parse(out / "junit.xml").getroot()
    assert junit.get("failures") == str(N)
    gl = json.loads((out / "gl-code-quality.json").read_text())
    assert len(gl) == N and {i["check_name"] for i in gl} >= {"TRT101", "TRT301"}
    assert sorted((i["location"]["path"], i["location"]["lines"]["begin"]) for i in gl) == sorted(
        (x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], x["locations"][0]["physicalLocation"]["region"]["startLine"])
        for x in results
    )


def test_output_format_errors_exit_2():
    r = trtlint("check", str(FIXTURE), "--format", "json", "--format", "sarif")
    assert r.returncode == 2 and "several formats to one output" in r.stderr
    r = trtlint("check", str(FIXTURE), "--format", "xml")
    assert r.returncode == 2 and "unknown format 'xml'" in r.stderr
    r = trtlint("check", "-")
    assert r.returncode == 2 and "--stdin-filename" in r.stderr


def test_github_format_from_the_cli():
    r = trtlint("check", str(FIXTURE), "--no-cache", "--format", "github")
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert len(lines) == N and all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)
    assert any(line.startswith(f"::error file={TRANSLATIONS},line=32,") for line in lines)


def test_check_stdin_uses_the_given_text_for_that_file(tmp_path):
    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    (proj / ".git").mkdir()  # a project root
    text = (proj / TRANSLATIONS).read_text()
    before = snapshot(proj)
    # as on disk: the file's own three findings, judged against the whole project
    r = trtlint("check", "-", "--stdin-filename", str(proj / TRANSLATIONS), "--no-cache", "--format", "json", input=text)
    assert r.returncode == 1, r.stderr
    got = sorted((d["code"], d["location"]["line"]) for d in json.loads(r.stdout)["diagnostics"])
    assert got == [("TRT101", 32), ("TRT102", 22), ("TRT103", 17)]
    # the editor's text fixes the typo and introduces another one
    edited = text.replace("FooPlugn(", "FooPlugin(").replace("_trt_edgellm.BarPlugin(x, axis=axis)\n", "_trt_edgellm.BarPlugn(x, axis=axis)\n")
    r = trtlint("check", "-", "--stdin-filename", str(proj / TRANSLATIONS), "--no-cache", "--format", "json", input=edited)
    data = json.loads(r.stdout)
    got = sorted((d["code"], d["location"]["line"]) for d in data["diagnostics"])
    assert got == [("TRT101", 22), ("TRT103", 17)]
    assert {d["location"]["path"] for d in data["diagnostics"]} == {TRANSLATIONS}
    (d101,) = [d for d in data["diagnostics"] if d["code"] == "TRT101"]
    assert "'BarPlugn'" in d101["message"] and "closest registered: 'BarPlugin'" in d101["message"]
    # relative --stdin-filename from the project directory, text output
    r = trtlint("check", "-", "--stdin-filename", TRANSLATIONS, "--no-cache", cwd=proj, input=edited)
    assert f"{TRANSLATIONS}:22:" in r.stdout and "Found 2 problems" in r.stdout
    assert snapshot(proj) == before  # stdin text is never written anywhere


def _run_on_pty(args: list[str], cwd: Path, delay: str = "0") -> tuple[int, str, str]:
    """Run trtlint with stderr on a pseudo-terminal (stdout piped): what a user at a terminal would see.
    ``delay`` is TRTLINT_PROGRESS_DELAY: "0" shows the display from the first update, so no test races the clock."""
    import pty

    master, slave = pty.openpty()
    env = dict(os.environ, NO_COLOR="1", TERM="xterm", COLUMNS="120", TRTLINT_PROGRESS_DELAY=delay)
    p = subprocess.Popen([sys.executable, "-m", "trtlint", *args], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    out = p.stdout.read().decode()
    rc = p.wait(timeout=300)
    os.close(master)
    return rc, out, b"".join(chunks).decode("utf-8", "replace")


def test_progress_display_only_on_a_terminal_and_only_for_text(tmp_path):
    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    # with no delay the progress display shows on the terminal (stderr) ...
    rc, out, tty = _run_on_pty(["check", str(proj), "--no-cache", "-j", "1"], tmp_path)
    assert rc == 1 and f"Found {N} problems" in out
    import re

    assert re.search(r"trtlint: (discovering files|extracting facts|joining the index|running the rules)", tty), tty
    assert "trtlint:" not in out  # ... never in the report itself
    # machine formats: no progress even on a terminal
    rc, out, tty = _run_on_pty(["check", str(proj), "--no-cache", "-j", "1", "--format", "json"], tmp_path)
    assert rc == 1 and json.loads(out)["summary"]["findings"] == N
    # no progress: the line naming the project, then (no text report) what was analysed and the TensorRT release
    lines = tty.strip().splitlines()
    assert lines[0] == f"trtlint: project {proj.resolve()} (profile edgellm, detected)"
    assert lines[1].startswith("analysed ") and len(lines) == 3, tty
    assert lines[2].startswith(("TensorRT ", "no TensorRT version known")), tty
    # not a terminal: no progress on stderr, only the line naming the project
    r = trtlint("check", str(proj), "--no-cache", "-j", "1")
    assert r.returncode == 1 and r.stderr == f"trtlint: project {proj.resolve()} (profile edgellm, detected)\n"


def test_progress_display_waits_for_its_delay(tmp_path):
    """A run shorter than the delay prints no progress: here the delay (an hour) is longer than any run."""
    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    rc, out, tty = _run_on_pty(["check", str(proj), "--no-cache", "-j", "1"], tmp_path, delay="3600")
    assert rc == 1 and f"Found {N} problems" in out
    assert tty.strip() == f"trtlint: project {proj.resolve()} (profile edgellm, detected)", tty  # no progress


def test_progress_delay_setting(monkeypatch):
    from trtlint.base.progress import DEFAULT_DELAY, ProgressDisplay

    for raw, expected in (("0", 0.0), ("2.5", 2.5), ("", DEFAULT_DELAY), ("soon", DEFAULT_DELAY), ("-1", DEFAULT_DELAY)):
        monkeypatch.setenv("TRTLINT_PROGRESS_DELAY", raw)
        assert ProgressDisplay().delay == expected, raw
    monkeypatch.delenv("TRTLINT_PROGRESS_DELAY")
    # shown from the first update with no delay; never before the delay has passed
    import io

    from rich.console import Console

    shown = ProgressDisplay(delay=0, console=Console(file=io.StringIO()))
    shown("discover", 1, 2)
    assert shown.shown
    shown.close()
    hidden = ProgressDisplay(delay=3600, console=Console(file=io.StringIO()))
    hidden("discover", 1, 2)
    assert not hidden.shown and hidden.updates == 1
