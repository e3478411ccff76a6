from __future__ import annotations

import shutil
from pathlib import Path

from trtlint.config.settings import Settings, apply_table
from trtlint.pipeline.run import run


def write_project(root: Path, files: dict) -> None:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if callable(content):  # a lazily built file, e.g. an ONNX model (trtlint.checks.examples.onnx.onnx_model)
            content = content()
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8")


def check_project(root: Path, select=None, config: dict | None = None, jobs: int = 1):
    s = Settings(root=root.resolve())
    if config:
        apply_table(s, config, "test config")
    if select is not None:
        s.select = list(select)
    return run(s, jobs=jobs, use_cache=False)


def diag_keys(diags) -> list[tuple]:
    """What two runs' findings are compared by: code, place, symbol, message and notes."""
    return [(d.code, d.span.path, d.span.line, d.span.col, d.symbol, d.message, tuple(d.notes)) for d in diags]


def full_run_keys(proj: Path, texts: dict, scratch: Path, select=None) -> list[tuple]:
    """The findings of a from-scratch run over a copy of ``proj`` (at ``scratch``) with ``texts`` (rel -> text)
    written into it, as :func:`diag_keys`, the copy's path in messages put back to ``proj``'s."""
    shutil.copytree(proj, scratch)
    for r, t in texts.items():
        (scratch / r).write_text(t, encoding="utf-8")
    full = check_project(scratch, select=select or None)
    return [(c, p, ln, col, sym, msg.replace(str(scratch), str(proj)), notes)
            for c, p, ln, col, sym, msg, notes in diag_keys(full.diagnostics)]
