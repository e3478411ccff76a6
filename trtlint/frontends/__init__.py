"""Frontends: the only code that touches a parser library.

Each frontend module exposes ``KIND_NAMES`` (the discovered kinds it handles), ``VERSION`` (bumped when its
output changes; part of the cache key) and ``extract(src: SourceFile, ctx: ExtractContext) -> FileFacts``.
``extract`` must never raise for bad input: it returns a FileFacts with ``problems`` instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional


@dataclass(frozen=True)
class SourceFile:
    path: Path  # absolute
    rel: str  # project-relative POSIX path
    kind: str  # "cpp" | "cuda" | "header" | "python" | "cmake" | "onnx" | "yaml"
    digest: str


@dataclass(frozen=True)
class ExtractContext:
    root: Path
    include_dirs: tuple[str, ...] = ()  # absolute include dirs for C++ (config + profile)
    compile_commands: Optional[str] = None  # absolute path to compile_commands.json
    defines: tuple[str, ...] = ()
    max_call_depth: int = 8
    onnx_load_external: bool = False
    # Python direct-route builders: ``operation("name", inputs, **attrs)``
    route_call_names: tuple[str, ...] = ("operation",)
    route_reserved_kwargs: tuple[str, ...] = ("output_count",)


def read_text(src: SourceFile) -> tuple[Optional[str], Optional[str]]:
    """Read a source file as UTF-8. Returns (text, problem)."""
    try:
        data = src.path.read_bytes()
    except OSError as e:
        return None, f"cannot read file: {e.strerror or e}"
    if b"\x00" in data[:8192]:
        return None, "binary file (contains NUL bytes)"
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as e:
        return None, f"not valid UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start})"
