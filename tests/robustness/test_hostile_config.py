"""Hostile config and rule packs (issue 37): the config and the packs it names are, on a pull request,
attacker-controlled. Each attack is made at test time by a few lines of code and run as a user runs trtlint
(``trtlint check --format json``, a subprocess under a 2 GB address-space cap and a 60 s timeout): it must
end with a clear error (exit 2) or its findings, never a traceback, a hang or memory without bound."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .helpers import REPO, cap_memory

TIMEOUT = 60.0


def _check(root: Path) -> tuple[int, list[dict], str, float]:
    """``trtlint check ROOT --format json`` capped: (exit code, diagnostics, stderr, seconds)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    t0 = time.monotonic()
    r = subprocess.run(
        [sys.executable, "-m", "trtlint", "check", str(root), "--format", "json", "--no-cache", "--no-progress"],
        capture_output=True, text=True, timeout=TIMEOUT, env=env, stdin=subprocess.DEVNULL, preexec_fn=cap_memory,
    )
    took = time.monotonic() - t0
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr[-2000:]
    diags = json.loads(r.stdout)["diagnostics"] if r.stdout.strip() else []
    return r.returncode, diags, r.stderr, took


def _project(root: Path, config: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / ".git").mkdir(exist_ok=True)
    (root / "a.py").write_text("x = 1\n")
    (root / "trtlint.toml").write_text(config)
    return root


def _error(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.startswith("trtlint: error: ")]
    assert len(lines) == 1, stderr
    return lines[0][len("trtlint: error: "):]


# ---------------------------------------------------------------- rule packs


def test_billion_laughs_pack_is_refused_at_its_first_alias(tmp_path):
    root = _project(tmp_path / "p", 'rule-packs = ["pack.yaml"]\n')
    items = ['&a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    items += [f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]  # 10^10 "lol"s
    (root / "pack.yaml").write_text("version: 1\nteardown_methods:\n" + "".join(f"  - {x}\n" for x in items))
    rc, _, err, _ = _check(root)
    assert rc == 2
    assert _error(err) == (
        f"rule pack {root / 'pack.yaml'}:4: YAML alias '*a0': aliases are not allowed in rule packs "
        "(they can expand a small file without bound); write the value out"
    )


def test_100_mb_pack_is_refused_before_it_is_read(tmp_path):
    root = _project(tmp_path / "p", 'rule-packs = ["pack.yaml"]\n')
    entry = '  - {name: cudaMallocXXXXXXXXXXXXXXXXXXXXXXXX, what: "an allocation, written out at length"}\n'
    with open(root / "pack.yaml", "w") as fh:  # a valid pack: today it is parsed to a MemoryError
        fh.write("version: 1\nallocating:\n")
        fh.write(entry * (100 * 1024 * 1024 // len(entry)))
    size = (root / "pack.yaml").stat().st_size
    rc, _, err, took = _check(root)
    assert rc == 2 and took < 30
    assert _error(err) == f"rule pack {root / 'pack.yaml'}: cannot read: file is {size} bytes, over the 8388608-byte limit"


def test_pack_linked_to_dev_zero_is_refused_naming_the_setting(tmp_path):
    root = _project(tmp_path / "p", 'rule-packs = ["pack.yaml"]\n')
    (root / "pack.yaml").symlink_to("/dev/zero")
    rc, _, err, _ = _check(root)
    assert rc == 2
    assert _error(err) == (
        f"rule pack {root / 'pack.yaml'} (a link to /dev/zero): outside the project root {root} "
        "(setting 'rule-packs'); rule packs are read only from inside the project"
    )


def test_pack_outside_the_project_is_refused_naming_the_setting(tmp_path):
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("version: 1\n")
    root = _project(tmp_path / "p", f'rule-packs = ["{outside}"]\n')
    rc, _, err, _ = _check(root)
    assert rc == 2
    assert _error(err) == (
        f"rule pack {outside}: outside the project root {root} (setting 'rule-packs'); "
        "rule packs are read only from inside the project"
    )


def test_pack_that_is_a_fifo_is_not_opened_for_reading(tmp_path):
    root = _project(tmp_path / "p", 'rule-packs = ["pack.yaml"]\n')
    os.mkfifo(root / "pack.yaml")  # an open for reading blocks until a writer comes: never
    rc, _, err, _ = _check(root)
    assert rc == 2
    assert _error(err) == f"rule pack {root / 'pack.yaml'}: cannot read: not a regular file (a FIFO, socket or device); not read"


def test_deeply_nested_pack_is_refused(tmp_path):
    root = _project(tmp_path / "p", 'rule-packs = ["pack.yaml"]\n')
    n = 200_000  # libyaml's time grows with the square of the depth: minutes
    (root / "pack.yaml").write_text("version: 1\nteardown_methods: " + "[" * n + "]" * n + "\n")
    rc, _, err, _ = _check(root)
    assert rc == 2
    # refused quickly with the file and line named: by trtlint's own depth screen, or (PyYAML 6.0.4 and later) by
    # PyYAML's nesting limit, which its event parser now applies before trtlint's screen sees the depth
    assert _error(err) in (f"rule pack {root / 'pack.yaml'}:2: nested more than 64 levels deep",
                           f"rule pack {root / 'pack.yaml'}: line 2: invalid YAML: exceeded maximum nesting depth")


def test_a_pack_inside_the_project_still_loads(tmp_path):
    root = _project(tmp_path / "p", 'rule-packs = ["packs/mine.yaml"]\n')
    (root / "packs").mkdir()
    (root / "packs" / "mine.yaml").write_text("version: 1\nteardown_methods: [myTeardown]\n")
    rc, _, err, _ = _check(root)
    assert rc in (0, 1), err


# ---------------------------------------------------------------- config files


def test_catastrophic_per_file_ignores_pattern_ends_quickly(tmp_path):
    star60 = "*" * 60 + "x"
    root = _project(tmp_path / "p", f'[per-file-ignores]\n"{star60}" = ["TRT1"]\n')
    # a finding in a file with a long name, so that the pattern is matched against it
    (root / "sub").mkdir()
    (root / "sub" / ("a" * 80 + ".py")).write_text("x = 1\n")
    rc, diags, err, took = _check(root)
    assert rc == 1, err
    assert [d["message"] for d in diags if d["code"] == "TRT002"] == [
        f"unused suppression: per-file-ignores entry '{star60}' = 'TRT1' hides no finding"
    ]
    assert took < 30


def test_oversize_config_is_refused(tmp_path):
    root = _project(tmp_path / "p", "")
    (root / "trtlint.toml").write_text("# padding\n" * 200_000)  # 2 MB
    rc, _, err, _ = _check(root)
    assert rc == 2
    assert _error(err) == f"{root / 'trtlint.toml'}: cannot read: file is 2000000 bytes, over the 1048576-byte limit"


def test_dotted_key_bomb_in_config_is_refused(tmp_path):
    # tomllib's time grows with the square of a dotted key's parts: 60,000 parts (120 KB) take minutes
    root = _project(tmp_path / "p", "a" + ".a" * 60_000 + " = 1\n")
    rc, _, err, _ = _check(root)
    assert rc == 2
    assert _error(err) == f"{root / 'trtlint.toml'}:1: a dotted key of 60001 parts (at most 64); not read"


def test_deeply_nested_config_value_is_a_clear_error(tmp_path):
    root = _project(tmp_path / "p", "x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    rc, _, err, _ = _check(root)
    assert rc == 2
    assert _error(err) == f"{root / 'trtlint.toml'}: invalid TOML: arrays or tables nested too deeply"


def test_extend_to_a_device_is_refused(tmp_path):
    root = _project(tmp_path / "p", 'extend = "/dev/zero"\n')
    rc, _, err, _ = _check(root)
    assert rc == 2
    assert _error(err) == "/dev/zero: cannot read: not a regular file (a FIFO, socket or device); not read"


def test_long_extend_chain_is_cut_with_an_error(tmp_path):
    root = _project(tmp_path / "p", 'extend = "c1.toml"\n')
    for i in range(1, 40):
        (root / f"c{i}.toml").write_text(f'extend = "c{i + 1}.toml"\n')
    (root / "c40.toml").write_text("")
    rc, _, err, _ = _check(root)
    assert rc == 2
    assert _error(err) == (
        f"{root / 'c16.toml'}: 'extend' chain longer than 16 files; not followed to {root / 'c17.toml'}"
    )


def test_extend_cycle_is_an_error(tmp_path):
    root = _project(tmp_path / "p", 'extend = "c1.toml"\n')
    (root / "c1.toml").write_text('extend = "trtlint.toml"\n')
    rc, _, err, _ = _check(root)
    assert rc == 2
    assert _error(err) == f"{root / 'c1.toml'}: 'extend' makes a cycle through {root / 'trtlint.toml'}"


def test_shipped_packs_use_no_alias_and_nest_shallowly():
    from trtlint.config.packs import _screen, shipped_dir

    packs = sorted(shipped_dir().glob("*.yaml"))
    assert packs
    for p in packs:
        _screen(p.read_text(encoding="utf-8"), p)  # raises ConfigError on an alias or deep nesting
