from __future__ import annotations

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
