"""One file, one set of findings, whichever way it is checked (issue 35): for every rule example file,
``check .`` (the findings located or related there), ``check FILE``, ``check -`` with its unchanged text, and
the editor's session after the buffer is opened and after a no-op edit report the same findings.

Each way runs as users run it: the CLI's ``main`` in this process (its extraction still in worker processes),
and the language server's ``Session`` with an isolated extraction worker, as ``trtlint lsp`` makes it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from pathlib import Path

import pytest

from trtlint.checks.registry import all_rules
from trtlint.cli.commands import main
from trtlint.editor.session import Session

from .helpers import write_project

CASES = []
for _rule in all_rules():
    for _kind, _examples in (("valid", _rule.VALID), ("invalid", _rule.INVALID)):
        for _i, _ex in enumerate(_examples):
            # a config of tables is written by the example's own test through apply_table: these are checked
            # through a trtlint.toml, so only the examples whose config is flat keys are taken here
            if any(isinstance(v, dict) for v in (_ex.get("config") or {}).values()):
                continue
            CASES.append(pytest.param(_rule.code, _ex, id=f"{_rule.code}-{_kind}-{_i}"))


def _cli(args: list[str], cwd: Path, stdin: bytes | None = None) -> list[dict]:
    out, err = io.StringIO(), io.StringIO()
    old_in, old_cwd = sys.stdin, os.getcwd()
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(args)
    finally:
        sys.stdin = old_in
        os.chdir(old_cwd)
    assert rc in (0, 1), err.getvalue()
    return json.loads(out.getvalue())["diagnostics"]


def _key(code: str, path: str, line: int, message: str) -> tuple:
    return (code, path, line, message)


def _json_keys(diags: list[dict]) -> list[tuple]:
    return sorted(_key(d["code"], d["location"]["path"], d["location"]["line"], d["message"]) for d in diags)


def _touches(d: dict, rel: str) -> bool:
    return d["location"]["path"] == rel or any(r["location"]["path"] == rel for r in d.get("related", []))


def _toml(config: dict) -> str:
    return "".join(f"{k} = {json.dumps(v)}\n" for k, v in config.items())


@pytest.mark.parametrize("code,example", CASES)
def test_every_way_of_checking_a_file_gives_the_same_findings(tmp_path, code, example):
    root = tmp_path / "p"
    root.mkdir()
    write_project(root, example["files"])
    (root / ".git").mkdir()  # the project's root, as a repository's
    if example.get("config"):
        (root / "trtlint.toml").write_text(_toml(example["config"]))
    base = ["check", "--format", "json", "--no-cache", "--no-progress", "--select", code]
    whole = _cli(base + ["."], root)
    session = Session(root.resolve(), overrides={"select": [code]}, isolate=True, use_cache=False)
    try:
        session.load()
        for rel in example["files"]:
            if rel.endswith(".onnx"):
                continue  # a model is no editor buffer, and stdin carries text
            want = _json_keys([d for d in whole if _touches(d, rel)])
            data = (root / rel).read_bytes()
            assert _json_keys(_cli(base + [rel], root)) == want, f"check {rel}"
            assert _json_keys(_cli(base + ["-", "--stdin-filename", rel], root, stdin=data)) == want, f"check - {rel}"
            text = data.decode("utf-8", "surrogateescape")
            for what in ("opened", "after a no-op edit"):
                session.set_buffer(rel, text)
                got = sorted(_key(d.code, d.span.path, d.span.line, d.message) for d in session.check()
                             if d.span.path == rel or any(r.span.path == rel for r in d.related))
                assert got == want, f"the editor's {rel}, {what}"
    finally:
        session.close()
