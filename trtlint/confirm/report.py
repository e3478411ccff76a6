"""Confirm results as text, JSON, or SARIF (the trtlint SARIF log with a ``confirm`` result property)."""

from __future__ import annotations

import json
from collections import Counter

from . import STATUSES, FindingResult
from .runner import Environment

CONFIRM_FORMAT_VERSION = 1


def summary(results: list[FindingResult]) -> dict:
    c = Counter(r.status for r in results)
    return {s: c.get(s, 0) for s in STATUSES}


def render_text(results: list[FindingResult], env: Environment) -> str:
    lines = []
    for r in results:
        d = r.finding
        lines.append(f"{d.span.path}:{d.span.line}: {d.code} {r.label}")
        if r.status in ("confirmed", "not-reproduced") and r.reason:
            lines.append(f"    {r.reason}")
        for c in r.compile:
            lines.append(f"    nvcc {c.path}: {'ok' if c.ok else 'FAILED'} ({c.seconds:.1f} s)" + ("" if c.ok else ": " + "; ".join(c.errors[:1])))
        if r.folder:
            lines.append(f"    repro: {r.folder}")
    s = summary(results)
    envs = f"tensorrt {env.tensorrt}" if env.tensorrt else "no tensorrt"
    lines.append(
        f"{len(results)} finding(s): " + ", ".join(f"{n} {k}" for k, n in s.items()) + f"  [{envs}, {env.gpus} GPU(s)]"
    )
    return "\n".join(lines) + "\n"


def build_json(results: list[FindingResult], env: Environment, tool_version: str) -> dict:
    return {
        "version": CONFIRM_FORMAT_VERSION,
        "tool": {"name": "trtlint", "version": tool_version, "command": "confirm"},
        "environment": env.to_dict(),
        "summary": summary(results),
        "results": [r.to_dict() for r in results],
    }


def render_json(results: list[FindingResult], env: Environment, tool_version: str) -> str:
    return json.dumps(build_json(results, env, tool_version), indent=2, default=str) + "\n"


def render_sarif(results: list[FindingResult], env: Environment, ctx) -> str:
    """The ordinary trtlint SARIF log of the findings, each result with ``properties.confirm``."""
    from ..report.sarif import build_sarif

    log = build_sarif([r.finding for r in results], ctx)
    run = log["runs"][0]
    for sres, r in zip(run["results"], results):
        props = sres.setdefault("properties", {})
        props["confirm"] = {"status": r.status, "reason": r.reason, "recipe": r.recipe, "repro": str(r.folder) if r.folder else None}
    run.setdefault("properties", {})["confirmEnvironment"] = env.to_dict()
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
