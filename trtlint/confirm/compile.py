"""A first, real confirmation where TensorRT headers are at hand: compile each flagged plugin translation unit
with nvcc against them (``--trt-include DIR``, the include/ folder of a TensorRT copy). It shows the code
trtlint read is real, compilable plugin code, and what symbols its object file defines."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional


@dataclass
class CompileResult:
    path: str
    ok: bool
    seconds: float
    command: list[str]
    errors: list[str] = field(default_factory=list)  # the first error lines
    symbols: list[str] = field(default_factory=list)  # defined function symbols (demangled), when ok

    def to_dict(self) -> dict:
        d = {"path": self.path, "ok": self.ok, "seconds": round(self.seconds, 2), "command": " ".join(self.command)}
        if self.errors:
            d["errors"] = self.errors
        return d


def find_nvcc() -> Optional[str]:
    return shutil.which("nvcc") or next((str(p) for p in sorted(Path("/usr/local").glob("cuda*/bin/nvcc"))), None)


def include_dirs(root: Path, rel: str, extra: list[Path]) -> list[Path]:
    """The TU's directory and its ancestors up to the root, each ancestor's ``common`` folder (TensorRT OSS
    plugins include "common/plugin.h" from plugin/), the root's include/, then ``extra``."""
    out: list[Path] = []
    p = (root / rel).parent
    while True:
        for cand in (p, p / "common", p / "include"):
            if cand.is_dir() and cand not in out:
                out.append(cand)
        if p == root or p.parent == p or root not in p.parents:
            break
        p = p.parent
    for e in extra:
        if e not in out:
            out.append(e)
    return out


def compile_tu(root: Path, rel: str, trt_include: Path, extra_includes: list[Path] = (), timeout: float = 300.0,
               nvcc: Optional[str] = None, std: str = "c++17", defines: tuple = ()) -> CompileResult:
    nvcc = nvcc or find_nvcc()
    if nvcc is None:
        return CompileResult(rel, False, 0.0, [], ["nvcc not found"])
    incs = [trt_include] + include_dirs(root.resolve(), rel, [Path(e) for e in extra_includes])
    with tempfile.TemporaryDirectory(prefix="trtlint-nvcc-") as tmp:
        obj = Path(tmp) / (Path(rel).stem + ".o")
        cmd = [nvcc, f"-std={std}", "-c", "-w", "-Xcompiler", "-fPIC"]
        if rel.endswith(".cu"):
            cmd += ["-x", "cu"]
        cmd += [f"-D{d}" for d in defines] + [f"-I{d}" for d in incs] + [str(root / rel), "-o", str(obj)]
        t0 = time.monotonic()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return CompileResult(rel, False, time.monotonic() - t0, cmd, [f"nvcc timed out after {timeout:g} s"])
        secs = time.monotonic() - t0
        if p.returncode != 0:
            errs = [ln.strip() for ln in (p.stderr + p.stdout).splitlines() if "error" in ln.lower()][:8]
            return CompileResult(rel, False, secs, cmd, errs or [(p.stderr or p.stdout).strip()[-500:]])
        syms: list[str] = []
        if shutil.which("nm"):
            nm = subprocess.run(["nm", "-C", "--defined-only", str(obj)], capture_output=True, text=True, timeout=60)
            for ln in nm.stdout.splitlines():
                parts = ln.split(None, 2)
                if len(parts) == 3 and parts[1] in ("T", "W"):
                    syms.append(parts[2])
        return CompileResult(rel, True, secs, cmd, [], syms)
