"""The arguments of `trtlint confirm` (apart from trtlint.confirm, which a `check` run never imports)."""

from __future__ import annotations

from pathlib import Path


def add_arguments(p) -> None:
    p.add_argument("paths", nargs="*", type=Path, help="the project (default: the current directory)")
    p.add_argument("--from", dest="from_file", type=Path, metavar="FILE", help="findings from `trtlint check --format json|sarif` (default: run the check)")
    p.add_argument("--plugin-lib", type=Path, metavar="PATH", help="the built plugin library (.so)")
    p.add_argument("--build-cmd", metavar="CMD", help="shell command that builds the plugin library (run in the project root first)")
    p.add_argument("--build-timeout", type=float, default=3600.0, metavar="S")
    p.add_argument("--model", type=Path, metavar="FILE.onnx", help="an exported model containing the flagged nodes (input shapes and dtypes)")
    p.add_argument("--inputs", type=Path, metavar="FILE", help="per-plugin inputs, JSON or TOML: {Plugin: {inputs: ['float32[2,16]']}}")
    p.add_argument("--out", type=Path, default=Path("trtlint-confirm"), metavar="DIR", help="where repro folders go (default: ./trtlint-confirm)")
    p.add_argument("--timeout", type=float, default=300.0, metavar="S", help="per repro (default 300 s)")
    p.add_argument("--select", action="append", help="confirm only these rules (codes or prefixes; comma-separated)")
    p.add_argument("--trt-include", type=Path, metavar="DIR", help="TensorRT include/ folder: compile each flagged plugin TU with nvcc against it")
    p.add_argument("--include", "-I", action="append", type=Path, default=[], metavar="DIR", help="extra include directory for the nvcc step")
    p.add_argument("--no-run", action="store_true", help="write the repro folders, do not run them")
    p.add_argument("--format", choices=["text", "json", "sarif"], default="text")
    p.add_argument("--output", "-o", type=Path, help="write the report to FILE instead of stdout")
    p.add_argument("--config", type=Path)
    p.add_argument("--profile")
    p.add_argument("--no-cache", action="store_true")
    p.add_argument("--jobs", "-j", type=int)
