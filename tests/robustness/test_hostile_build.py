"""Hostile build files (issue 37): CMake that doubles its work per include level or its string per line, a list
file of megabytes, a ``compile_commands.json`` nested 200,000 deep or over its size limit, compile flags that
name a device or a FIFO. Each tree is made here by a few lines of code and checked as a user would (a
subprocess) under a 2 GB address-space cap and a 60 s timeout: the run ends with a TRT001 naming the file and
the limit, prints no traceback, and still analyses the plugin elsewhere in the tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .helpers import FifoWatch, REPO, cap_memory

PLUGIN = (REPO / "tests" / "fixtures" / "unresolved_base" / "plugins" / "foo" / "fooPlugin.cpp").read_text()


def check_capped(root: Path, timeout: float = 60) -> tuple[list[dict], dict]:
    """``trtlint check ROOT --format json`` under the memory cap and ``timeout``: (diagnostics, analysis)."""
    r = subprocess.run(
        [sys.executable, "-m", "trtlint", "check", str(root), "--format", "json", "--no-cache", "--no-progress",
         "-j", "1"],
        capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, preexec_fn=cap_memory,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    assert r.returncode in (0, 1), r.stderr
    out = json.loads(r.stdout)
    return out["diagnostics"], out["summary"]["analysis"]


def _tree(root: Path, files: dict) -> Path:
    for rel, content in {"plugins/foo/fooPlugin.cpp": PLUGIN, **files}.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content)
    return root


def _trt001(diags: list[dict]) -> list[tuple[str, int, str]]:
    return [(d["location"]["path"], d["location"]["line"], d["message"]) for d in diags if d["code"] == "TRT001"]


def _plugin_analysed(analysis: dict) -> None:
    assert (analysis["plugins"], analysis["creators"]) == (1, 1)


def test_include_twice_per_level_is_bounded(tmp_path):
    """30 .cmake files, each including the next twice: 2**30 evaluations without a limit (a hang). Each list file
    is evaluated at most 8 times from one including file."""
    files = {"CMakeLists.txt": "project(p)\ninclude(cmake/a0.cmake)\n"}
    for i in range(30):
        files[f"cmake/a{i}.cmake"] = (f"include(${{CMAKE_CURRENT_LIST_DIR}}/a{i + 1}.cmake)\n" * 2 if i < 29
                                      else "add_library(foo plugins/foo/fooPlugin.cpp)\n")
    diags, analysis = check_capped(_tree(tmp_path, files))
    assert _trt001(diags) == [(
        "cmake/a28.cmake", 1,
        "include() of cmake/a29.cmake not evaluated: this file evaluated it 8 times already (the limit per "
        "including file); 51 more calls over this limit",
    )]
    _plugin_analysed(analysis)


def test_add_subdirectory_twice_per_level_is_bounded(tmp_path):
    """The same with directories: each adds the next one twice (under two binary dirs, as CMake allows)."""
    files = {"CMakeLists.txt": "project(p)\nadd_subdirectory(d)\n"}
    d = "d"
    for i in range(30):
        files[f"{d}/CMakeLists.txt"] = "add_subdirectory(d b1)\nadd_subdirectory(d b2)\n" if i < 29 else "set(X 1)\n"
        d += "/d"
    diags, analysis = check_capped(_tree(tmp_path, files))
    last = "/".join(["d"] * 29)
    assert _trt001(diags) == [(
        f"{last}/CMakeLists.txt", 1,
        f"add_subdirectory() of {last}/d/CMakeLists.txt not evaluated: this file evaluated it 8 times already "
        "(the limit per including file); 51 more calls over this limit",
    )]
    _plugin_analysed(analysis)


def test_a_string_doubled_per_line_is_bounded(tmp_path):
    """``set(A "${A}${A}")`` 40 times: 2**40 bytes without a limit (MemoryError, the run lost). A value over
    16 MiB stops the evaluation of its list file; the commands before it count."""
    files = {"CMakeLists.txt": "project(p)\nadd_library(foo plugins/foo/fooPlugin.cpp)\nset(A x)\n"
                               + 'set(A "${A}${A}")\n' * 40}
    diags, analysis = check_capped(_tree(tmp_path, files))
    assert _trt001(diags) == [(
        "CMakeLists.txt", 27,
        "a value of over 16777216 bytes (the limit of one CMake value); the rest of this list file was not "
        "evaluated",
    )]
    _plugin_analysed(analysis)


def test_a_list_file_of_megabytes_is_read_in_linear_time(tmp_path):
    """A 4 MB CMakeLists.txt of set() lines (under the 4 MiB file limit): over 300 s with the quadratic
    tokenizer, a few seconds now; nothing to report."""
    lines, size, i = [], 0, 0
    while size < 4_000_000:
        s = f"set(VAR_{i} value_{i})\n"
        lines.append(s)
        size += len(s)
        i += 1
    diags, analysis = check_capped(_tree(tmp_path, {"CMakeLists.txt": "".join(lines)}))
    assert _trt001(diags) == []
    _plugin_analysed(analysis)


def test_compile_commands_nested_200000_deep_is_refused(tmp_path):
    """Without the depth limit, json.loads raised RecursionError: an internal error, the whole run lost."""
    diags, analysis = check_capped(_tree(tmp_path, {"compile_commands.json": "[" * 200_000 + "]" * 200_000}))
    assert _trt001(diags) == [(
        "compile_commands.json", 1,
        "compile_commands.json not used: nested more than 32 levels deep (the depth limit); not read",
    )]
    _plugin_analysed(analysis)


def test_compile_commands_over_the_size_limit_is_refused(tmp_path):
    """A 228 MB file took 188 s and 3.4 GB; over 64 MiB it is not read at all (here a sparse file: its size is
    judged before a byte is read)."""
    _tree(tmp_path, {})
    with open(tmp_path / "compile_commands.json", "wb") as f:
        f.truncate(65 << 20)
    diags, analysis = check_capped(tmp_path)
    assert _trt001(diags) == [(
        "compile_commands.json", 1,
        "compile_commands.json not used: file is 68157440 bytes, over the 67108864-byte limit",
    )]
    _plugin_analysed(analysis)


def test_compile_flags_naming_devices_and_fifos_are_never_opened(tmp_path):
    """``-include /dev/zero`` (read without end), a FIFO (blocks), ``-I /proc/self/fd`` in compile_commands.json,
    and an include dir of a CMake target under /proc: left out of the unit's arguments, said, and the FIFO
    never opened (``-imacros`` is never taken from compile_commands.json: nothing to say)."""
    root = _tree(tmp_path, {
        "plugins/bar/CMakeLists.txt": "add_library(bar barPlugin.cpp)\ninclude_directories(/proc/self/fd)\n"
                                      "target_include_directories(bar PRIVATE /proc/self/fd)\n",
        "plugins/bar/barPlugin.cpp": PLUGIN.replace("Foo", "Bar"),
        "CMakeLists.txt": "project(p)\nadd_subdirectory(plugins/bar)\n",
    })
    fifo = root / "plugins" / "foo" / "forced.h"
    os.mkfifo(fifo)
    unit = root / "plugins" / "foo" / "fooPlugin.cpp"
    (root / "compile_commands.json").write_text(json.dumps([{
        "directory": str(root / "build"), "file": str(unit),
        "command": f"c++ -include /dev/zero -include {fifo} -I/proc/self/fd -imacros /dev/stdin -c {unit}",
    }]))
    watch = FifoWatch(fifo)
    diags, analysis = check_capped(root)
    partly = "plugins/foo/fooPlugin.cpp could only partly be parsed: compile flag "
    assert sorted(_trt001(diags)) == sorted([
        ("plugins/bar/barPlugin.cpp", 1, "plugins/bar/barPlugin.cpp could only partly be parsed: compile flag -I "
                                         "/proc/self/fd names a device or special file; left out (never read)"),
        ("plugins/foo/fooPlugin.cpp", 1, partly + "-I /proc/self/fd names a device or special file; left out (never read)"),
        ("plugins/foo/fooPlugin.cpp", 1, partly + f"-include {fifo} names a device or special file; left out (never read)"),
        ("plugins/foo/fooPlugin.cpp", 1, partly + "-include /dev/zero names a device or special file; left out (never read)"),
        ("plugins/foo/forced.h", 1, "skipped: not a regular file (a FIFO, socket or device); not read"),
    ])
    assert (analysis["plugins"], analysis["creators"]) == (2, 2)
    assert not watch.opened_by_run()
