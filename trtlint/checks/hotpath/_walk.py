"""Walk from each plugin's `enqueue` through project functions to calls listed in a rules/ table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ...diagnostics import Diagnostic, Related, Severity
from ...facts import Call, CppFunction
from ...packs import ApiEntry


@dataclass(frozen=True)
class HotHit:
    plugin: str
    enqueue: CppFunction
    call: Call
    chain: tuple[CppFunction, ...]
    entry: ApiEntry


def _short(fn: CppFunction) -> str:
    parts = fn.qualname.split("::")
    return "::".join(parts[-2:]) if fn.cls else parts[-1]


def hot_hits(index, table: str) -> Iterator[HotHit]:
    seen: set[tuple] = set()
    for info in index.plugins:
        for enq in index.find_method(info.qualname, "enqueue"):
            for call, chain in index.walk_calls(enq):
                entry = index.packs.lookup(table, call.callee)
                if entry is None:
                    continue
                key = (call.span.path, call.span.line, call.span.col, call.callee)
                if key in seen:
                    continue
                seen.add(key)
                yield HotHit(info.cls.name, enq, call, chain, entry)


def chain_text(hit: HotHit) -> str:
    return " -> ".join([_short(f) for f in hit.chain] + [hit.call.callee])


def hot_diag(rule, hit: HotHit, verb: str) -> Diagnostic:
    sev = Severity(hit.entry.severity) if hit.entry.severity else None
    once = ""
    cleanup = next((f for f in hit.chain[1:] if f.name.startswith("~") or f.name == "operator="), None)
    if cleanup is not None:
        # a destructor or assignment operator releases what the object owns; whether it owns anything on
        # this path is not known statically (views over enqueue's buffers own nothing)
        sev = Severity.INFO
        once = f" only through {_short(cleanup)}, which releases what the object owns"
    elif hit.call.guard:
        # one-time guarded initialisation: it runs on the hot path once, not on every call
        sev = Severity.INFO
        why = "a function-local static's initializer" if hit.call.guard == "static-init" else (
            "guarded by `" + hit.call.guard.split(":", 1)[-1] + "`"
        )
        once = f" once (one-time initialisation: {why})"
    return rule.diag(
        hit.call.span,
        f"{hit.call.callee} ({hit.entry.what}) {verb}{once} on the hot path of {hit.plugin}::enqueue: {chain_text(hit)}",
        related=[Related(hit.enqueue.span, f"{hit.plugin}::enqueue is defined here")]
        + [Related(f.span, f"via {_short(f)}") for f in hit.chain[1:]],
        symbol=f"{hit.plugin}:{hit.call.callee}:{_short(hit.chain[-1])}",
        severity=sev,
    )
