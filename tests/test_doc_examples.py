"""Every ```toml example in README.md and docs/ loads as a reader would paste it.

The convention (docs/configuration.md says it to readers): a ```toml block's first line is a comment naming the
file it is, relative to the repository root: `# pyproject.toml`, `# services/vision/trtlint.toml`. The test
writes the block there in a fresh repository (nothing else of the page but the files the block itself needs)
and runs `trtlint config` on its directory in a subprocess, as a user does; then the real loader
(`load_settings`) must give every key the block writes, from that file.

What a block needs must be on the same page, shown as a file of its own: the file its `extend` names is the
closest block before it that names that path (a file a reader does not have fails the test, it is never made
up), and the rule packs its `rule-packs` names are the page's ```yaml blocks named by their first comment.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest

from trtlint.config.settings import CONFIG_NAMES, _KEYS, load_settings

from .test_docs import REPO, _named_path, _page_packs, doc_blocks

try:
    import tomllib
except ImportError:  # pragma: no cover
    import tomli as tomllib

BLOCKS = doc_blocks("toml")


def _page_blocks(where: str) -> list[tuple[int, PurePosixPath | None, str]]:
    """(line, named path, text) of the page's toml blocks that come before ``where``, closest first."""
    page, line = where.rsplit(":", 1)
    out = [(int(w.rsplit(":", 1)[1]), _named_path(b), b) for w, b in BLOCKS if w.rsplit(":", 1)[0] == page]
    return sorted([x for x in out if x[0] < int(line)], key=lambda x: -x[0])


def _inside(rel: PurePosixPath, where: str) -> PurePosixPath:
    parts: list[str] = []
    for part in rel.parts:
        if part == "..":
            assert parts, f"{where}: {rel} is outside the repository the example is in: a reader does not have it"
            parts.pop()
        elif part != ".":
            parts.append(part)
    return PurePosixPath(*parts)


def _table(name: PurePosixPath, text: str) -> dict:
    data = tomllib.loads(text)
    return data.get("tool", {}).get("trtlint", {}) if name.name == "pyproject.toml" else data


def test_the_docs_have_toml_examples():
    pages = {w.rsplit(":", 1)[0] for w, _ in BLOCKS}
    assert len(BLOCKS) >= 7 and {"docs/configuration.md", "docs/adoption.md"} <= pages, BLOCKS


@pytest.mark.parametrize("where,block", BLOCKS, ids=[w for w, _ in BLOCKS])
def test_toml_example_loads_as_written(where, block, tmp_path):
    name = _named_path(block)
    assert name is not None and block.startswith("#"), (
        f"{where}: a toml example starts with a comment naming its file (`# pyproject.toml`, `# trtlint.toml`)"
    )
    name = _inside(name, where)
    assert name.name in (*CONFIG_NAMES, "pyproject.toml"), f"{where}: {name} is not a file trtlint reads as config"
    table = _table(name, block)  # a TOML error fails here, naming the block
    assert table, f"{where}: no trtlint settings in the example ({name})"
    proj = tmp_path / "repo"
    (proj / ".git").mkdir(parents=True)  # the example's repository: its root is where the paths start
    written = {name: block}
    cur, cur_table = name, table
    while "extend" in cur_table:  # the files it extends: shown on the page before it, never made up here
        target = _inside(cur.parent / cur_table["extend"], where)
        shown = next((b for _, p, b in _page_blocks(where) if p is not None and _inside(p, where) == target), None)
        assert shown is not None, (
            f"{where}: {cur} extends {target}, which no example before it on the page shows: a reader does not have it"
        )
        assert target not in written, f"{where}: the examples' extend chain is a cycle through {target}"
        written[target] = shown
        cur, cur_table = target, _table(target, shown)
    for rel, text in list(written.items()) + _page_packs(where):
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text(text, encoding="utf-8")
    cfg = proj / name
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-m", "trtlint", "config", str(cfg.parent)], cwd=proj, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"{where}: `trtlint config` failed as the example is written:\n{r.stderr}"
    assert f"config file: {cfg}\n" in r.stdout, r.stdout
    for ext in list(written)[1:]:
        assert f"extends: {proj / ext}\n" in r.stdout, r.stdout
    # every key the example writes is a setting, and the setting came from the example
    s = load_settings(cfg.parent)
    for key in table:
        if key != "extend":
            assert s.origins[_KEYS[key]] == str(cfg), f"{where}: {key!r} did not take effect"
