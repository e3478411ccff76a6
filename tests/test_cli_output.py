"""What the command line says about itself (issue 20 item 6): the unsafe fixes `--diff` leaves, `--statistics`
as counts per rule, `clean --all`, and `trtlint rules` piped or on a narrow terminal. Real subprocesses on a
copy of the Edge-LLM miniature (its one fix is unsafe: the rename of 'FooPlugn' in the translations)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

from .test_cli import FIXTURE, snapshot, trtlint
from .test_fixture_project import EXPECTED

TRANSLATIONS = "tensorrt_edgellm/onnx/dynamo_translations.py"


def _copy(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    return proj


def test_diff_says_how_many_unsafe_fixes_it_left_and_unsafe_fixes_shows_them(tmp_path):
    proj = _copy(tmp_path)
    before = snapshot(proj)
    r = trtlint("check", str(proj), "--diff", "--no-cache")
    assert r.returncode == 0 and r.stdout == "", r.stderr  # nothing a safe --fix would change
    assert "Would fix 0 findings (0 files); nothing written." in r.stderr
    assert "1 more fix available with --unsafe-fixes (--diff --unsafe-fixes shows it)." in r.stderr
    r = trtlint("check", str(proj), "--diff", "--unsafe-fixes", "--no-cache")
    assert r.returncode == 1
    assert "+    return _trt_edgellm.FooPlugin(x, alpha=1.0)" in r.stdout
    assert "Would fix 1 finding (1 file); nothing written." in r.stderr and "more fix" not in r.stderr
    assert snapshot(proj) == before
    assert "Traceback" not in r.stderr


def _rows(text: str) -> list[list[str]]:
    return [line.split("\t") for line in text.splitlines() if "\t" in line]


def test_statistics_counts_findings_per_rule_most_frequent_first(tmp_path):
    proj = _copy(tmp_path)
    r = trtlint("check", str(proj), "--statistics", "--no-cache")
    assert r.returncode == 1, r.stderr
    assert "error[TRT" not in r.stdout  # the counts take the listing's place, as in ruff
    rows = _rows(r.stdout)
    want = Counter(code for code, *_ in EXPECTED)
    assert {code.strip(): int(n) for n, code, _ in rows} == dict(want)
    assert [int(n) for n, *_ in rows] == sorted((int(n) for n, *_ in rows), reverse=True)
    marks = {code.strip(): rest for _n, code, rest in rows}
    assert marks["TRT101"] == "[-] plugin-name-mismatch"  # its fix is unsafe
    assert marks["TRT301"] == "[ ] enqueue-allocation"
    assert f"Found {len(EXPECTED)} problems (" in r.stdout
    assert "[-] fixable with --fix --unsafe-fixes" in r.stdout
    assert r.stderr.strip().splitlines()[-1].startswith("files: ")  # the timings, last on stderr
    assert " total " in r.stderr

    r = trtlint("check", str(proj), "--statistics", "--unsafe-fixes", "--no-cache")
    assert {c.strip(): rest for _n, c, rest in _rows(r.stdout)}["TRT101"] == "[*] plugin-name-mismatch"


def test_statistics_beside_a_machine_report_go_to_stderr(tmp_path):
    proj = _copy(tmp_path)
    r = trtlint("check", str(proj), "--statistics", "--format", "json", "--no-cache")
    assert len(json.loads(r.stdout)["diagnostics"]) == len(EXPECTED)  # stdout stays the report
    assert sum(int(n) for n, *_ in _rows(r.stderr)) == len(EXPECTED)
    assert r.stderr.strip().splitlines()[-1].startswith("files: ")


def _pch_files(xdg: Path) -> list[Path]:
    return sorted((xdg / "trtlint" / "pch").glob("*.pch"))


def test_clean_all_also_removes_the_per_user_cache_and_says_how_much(tmp_path):
    proj = _copy(tmp_path)
    xdg = tmp_path / "xdg"
    (tmp_path / "tmp").mkdir()
    # every place the per-user cache may be is under tmp_path (TMPDIR: the last-resort PCH directory)
    env = dict(os.environ, NO_COLOR="1", XDG_CACHE_HOME=str(xdg), TMPDIR=str(tmp_path / "tmp"))
    env.pop("TRTLINT_PCH_DIR", None)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "trtlint", *args], capture_output=True, text=True, env=env, timeout=300)

    r = run("check", str(proj))
    assert r.returncode == 1, r.stderr
    assert (proj / ".trtlint_cache").is_dir() and _pch_files(xdg), "the run keeps its PCH under $XDG_CACHE_HOME"
    (xdg / "trtlint" / "pch" / "notes.txt").write_text("not trtlint's\n")

    r = run("clean", str(proj))  # without --all: the per-user cache stays
    assert r.returncode == 0 and f"removed {proj / '.trtlint_cache'} (" in r.stdout
    assert _pch_files(xdg)

    size = sum(f.stat().st_size for f in (xdg / "trtlint" / "pch").iterdir() if f.name != "notes.txt")
    n = sum(1 for f in (xdg / "trtlint" / "pch").iterdir() if f.name != "notes.txt")
    r = run("clean", "--all", str(proj))
    assert r.returncode == 0, r.stderr
    assert f"nothing to remove ({proj / '.trtlint_cache'} does not exist)" in r.stdout
    assert f"removed {n} files (" in r.stdout and f"from {xdg / 'trtlint' / 'pch'}; kept 1 file trtlint did not write" in r.stdout
    assert f"{size / 2**20:.1f} MiB" in r.stdout
    assert [f.name for f in (xdg / "trtlint" / "pch").iterdir()] == ["notes.txt"]  # only what trtlint wrote went

    (xdg / "trtlint" / "pch" / "notes.txt").unlink()
    run("check", str(proj), "--no-cache")
    assert _pch_files(xdg)
    r = run("clean", "--all", str(proj))
    assert r.returncode == 0 and f"removed {xdg / 'trtlint'} (" in r.stdout
    assert not (xdg / "trtlint").exists() and xdg.is_dir()
    r = run("clean", "--all", str(proj))
    assert r.returncode == 0 and "nothing to remove in the per-user cache" in r.stdout
    assert "Traceback" not in r.stderr


def test_clean_all_empties_a_pch_dir_the_user_named_but_keeps_it(tmp_path):
    named = tmp_path / "mine"
    named.mkdir()
    (named / ("0123456789abcdef" * 2 + ".pch")).write_bytes(b"x" * 2048)
    (named / ("0123456789abcdef" * 2 + ".json")).write_text("{}")
    (named / "build.log").write_text("the user's\n")
    (tmp_path / "tmp").mkdir()
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"), TMPDIR=str(tmp_path / "tmp"), TRTLINT_PCH_DIR=str(named))
    r = subprocess.run([sys.executable, "-m", "trtlint", "clean", "--all", str(tmp_path)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"removed 2 files (2.0 KiB) from {named}; kept 1 file trtlint did not write" in r.stdout
    assert [f.name for f in named.iterdir()] == ["build.log"]
    (named / "build.log").unlink()
    r = subprocess.run([sys.executable, "-m", "trtlint", "clean", "--all", str(tmp_path)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0 and f"nothing to remove in {named}" in r.stdout
    assert named.is_dir()  # emptied, never removed: the user named it


def test_rules_piped_is_one_rule_per_line_in_plain_columns():
    r = trtlint("rules")
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    codes = json.loads(trtlint("rules", "--format", "json").stdout)
    assert len(lines) == 1 + len(codes)  # a header and one line per rule: nothing wrapped
    assert lines[0].split() == ["code", "name", "severity", "default", "fixable", "family", "summary"]
    assert not any(ch in r.stdout for ch in "┏┃│━─…")  # no box drawing, nothing cut
    by_code = {line.split()[0]: line for line in lines[1:]}
    for rule in codes:
        line = by_code[rule["code"]]
        assert line.split()[:6] == [rule["code"], rule["name"], rule["severity"], "yes" if rule["default"] else "opt-in",
                                    "yes" if rule["fixable"] else "no", rule["family"]]
        assert line.endswith(rule["summary"])
    starts = {line.find(rule["summary"]) for line, rule in zip(lines[1:], codes) if rule["summary"]}
    assert len(starts) == 1 and lines[0].find("summary") in starts  # the summaries start in one column


def _on_terminal(columns: int, *args: str) -> str:
    """trtlint's output on a pseudo-terminal ``columns`` wide."""
    import pty

    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS=str(columns), LINES="50", NO_COLOR="1")
    p = subprocess.Popen([sys.executable, "-m", "trtlint", *args], stdout=slave, stderr=slave, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the other side closed
            break
        if not chunk:
            break
        out += chunk
    p.wait(timeout=300)
    os.close(master)
    return out.decode("utf-8", "replace").replace("\r\n", "\n")


def test_rules_on_a_narrow_terminal_is_one_line_per_rule_and_a_wide_one_gets_the_table():
    n = len(json.loads(trtlint("rules", "--format", "json").stdout))
    narrow = _on_terminal(80, "rules")
    lines = narrow.splitlines()
    assert len(lines) == 1 + n and all(len(line) <= 80 for line in lines), narrow[:2000]
    assert "┃" not in narrow
    wide = _on_terminal(400, "rules")
    assert "┃" in wide and "trtlint rules" in wide


def test_clean_from_a_subdirectory_removes_the_project_cache(tmp_path):
    """The cache lives at the project root (a check of a subdirectory writes it there), so `clean SUBDIR`
    removes that one, never looks for one inside SUBDIR; a path that does not exist is a usage error."""
    proj = _copy(tmp_path)
    (proj / ".git").mkdir()  # the repository root is the project
    r = trtlint("check", str(proj / "tensorrt_edgellm"))
    assert r.returncode == 1 and (proj / ".trtlint_cache").is_dir(), r.stderr
    assert not (proj / "tensorrt_edgellm" / ".trtlint_cache").exists()
    r = trtlint("clean", str(proj / "tensorrt_edgellm"))
    assert r.returncode == 0 and f"removed {proj / '.trtlint_cache'} (" in r.stdout, r.stdout + r.stderr
    assert not (proj / ".trtlint_cache").exists()
    r = trtlint("clean", str(proj / "missing"))
    assert r.returncode == 2 and "missing: no such file or directory" in r.stderr
