from pathlib import Path

from trtlint.cli.docsgen import CODES, render_all

DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules"


def test_rule_docs_are_up_to_date():
    pages = render_all()
    for name, text in pages.items():
        p = DOCS / name
        assert p.is_file(), f"docs/rules/{name} is missing: run `python -m trtlint.cli.docsgen`"
        assert p.read_text(encoding="utf-8") == text, f"docs/rules/{name} is stale: run `python -m trtlint.cli.docsgen`"
    extra = {p.name for p in DOCS.glob("TRT*.md")} - set(pages)
    assert not extra, f"docs for rules that no longer exist: {extra}"


def test_the_code_table_is_the_registry():
    """trtlint/checks/codes.py (what selectors are judged against without importing the rules) lists every rule's
    code, name and default as the rule classes say them."""
    from trtlint.checks import codes
    from trtlint.checks.registry import all_rules, codes_source

    assert list(codes.RULES) == [(r.code, r.name, r.default) for r in all_rules()], \
        "trtlint/checks/codes.py is stale: run `python -m trtlint.cli.docsgen`"
    assert CODES.read_text(encoding="utf-8") == codes_source(all_rules())


# --- every TOML and YAML example in the docs loads --------------------------------------------------------------
# A ```toml block is a config file: tests/test_doc_examples.py writes it where its first-line comment says
# (`# services/vision/trtlint.toml`) and loads it with `trtlint config`. A ```yaml block is loaded by what reads it:
# a rule pack (`version:`) by the pack validator, a test list (`tests:`) by the test-list frontend, a
# `.pre-commit-config.yaml` snippet (`repos:`) by yaml with its hook ids checked against .pre-commit-hooks.yaml.
# A deliberately partial fragment is marked `<!-- not-a-complete-example -->` on the line before its fence.

import re
from pathlib import PurePosixPath

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
_FENCE = re.compile(r"^```(toml|yaml|yml)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
_PARTIAL = "<!-- not-a-complete-example -->"
_PATH_COMMENT = re.compile(r"^#\s*([\w./-]+\.(?:toml|ya?ml))\b")


def _pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def doc_blocks(lang: str) -> list[tuple[str, str]]:
    """(where, text) of every fenced block of the language in the docs, not marked partial."""
    out = []
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        for m in _FENCE.finditer(text):
            if (m.group(1) == "toml") != (lang == "toml"):
                continue
            before = text[: m.start()].rstrip().splitlines()
            if before and before[-1].strip() == _PARTIAL:
                continue
            line = text.count("\n", 0, m.start()) + 1
            out.append((f"{page.relative_to(REPO)}:{line}", m.group(2)))
    return out


def _named_path(block: str):
    m = _PATH_COMMENT.match(block.lstrip())
    return PurePosixPath(m.group(1)) if m else None


def _page_packs(where: str) -> list[tuple[PurePosixPath, str]]:
    """The YAML blocks of the same page whose first comment names their path (the packs a TOML example uses)."""
    page = where.rsplit(":", 1)[0]
    out = []
    for w, block in doc_blocks("yaml"):
        if w.rsplit(":", 1)[0] == page and _named_path(block) is not None:
            out.append((_named_path(block), block))
    return out


def _hook_ids() -> set[str]:
    return {h["id"] for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}


@pytest.mark.parametrize("where,block", doc_blocks("yaml"), ids=[w for w, _ in doc_blocks("yaml")])
def test_yaml_example_loads(where, block, tmp_path):
    data = yaml.safe_load(block)
    assert isinstance(data, dict), f"{where}: not a YAML mapping"
    if "repos" in data:  # a .pre-commit-config.yaml snippet
        for repo in data["repos"]:
            assert {"repo", "rev", "hooks"} <= set(repo), f"{where}: a repo entry needs repo, rev and hooks"
            for hook in repo["hooks"]:
                assert hook["id"] in _hook_ids(), f"{where}: no hook {hook['id']!r} in .pre-commit-hooks.yaml"
    elif "tests" in data:  # a test list, read by the test-list frontend
        from trtlint.frontends import ExtractContext, SourceFile
        from trtlint.frontends.testlists import extract

        p = tmp_path / "list.yml"
        p.write_text(block, encoding="utf-8")
        facts = extract(SourceFile(p, "list.yml", "yaml", ""), ExtractContext(root=tmp_path))
        assert not facts.problems, f"{where}: {facts.problems}"
        assert len(facts.test_entries) == len(data["tests"]), f"{where}: not every entry was read"
    else:  # a rule pack
        from trtlint.config.packs import load_pack_file, load_packs

        p = tmp_path / "pack.yaml"
        p.write_text(block, encoding="utf-8")
        load_pack_file(p)  # the validator: a bad key or value raises ConfigError naming it
        load_packs([p])


# --- the worked example of docs/adoption.md is real output ------------------------------------------------------

_TIME = re.compile(r"\d+(?:\.\d+)? s\)")


def _console_steps(page: Path, heading: str) -> list[tuple[str, list[str]]]:
    """(command, the output lines shown for it) of every ```console block in the page's section ``heading``."""
    text = page.read_text(encoding="utf-8")
    section = text[text.index(heading) :]
    nxt = section.find("\n## ", len(heading))
    section = section if nxt < 0 else section[:nxt]
    steps: list[tuple[str, list[str]]] = []
    for m in re.finditer(r"^```console\n(.*?)^```", section, re.M | re.S):
        for line in m.group(1).splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif line.strip():
                steps[-1][1].append(line)
    return steps


def _norm(line: str) -> str:
    return _TIME.sub("T s)", line.rstrip())


def test_adoption_worked_example_is_real_output(tmp_path):
    import os
    import shutil
    import subprocess
    import sys

    steps = _console_steps(REPO / "docs" / "adoption.md", "## A worked example")
    assert len(steps) >= 10
    mini = tmp_path / "mini"
    shutil.copytree(REPO / "tests" / "fixtures" / "edgellm_mini", mini)
    bindir = tmp_path / "bin"  # `trtlint` on PATH is this checkout's, run by this interpreter
    bindir.mkdir()
    (bindir / "trtlint").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m trtlint "$@"\n')
    (bindir / "trtlint").chmod(0o755)
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}", NO_COLOR="1")
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for cmd, shown in steps:
        r = subprocess.run(["bash", "-c", cmd], cwd=mini, env=env, capture_output=True, text=True, timeout=300)
        got = {_norm(line) for line in (r.stdout + r.stderr).splitlines()}
        m = re.search(r"#\s*exit (\d+)", cmd)
        want = int(m.group(1)) if m else 0
        assert r.returncode == want, f"$ {cmd}\nexit {r.returncode}, the page says {want}:\n{r.stdout}{r.stderr}"
        missing = [line for line in shown if _norm(line) not in got]
        assert not missing, f"$ {cmd}\nshown on the page but not printed: {missing}\nprinted:\n{r.stdout}{r.stderr}"
