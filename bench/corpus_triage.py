"""Hand triage of sampled default findings (issue 31, deliverable 4): the sample is drawn by code, the verdicts
are written by a person, and the report counts them.

    python3 bench/corpus.py sample TREE [--seed 31] [--n 20]   # a YAML skeleton of the sample, verdicts left "?"
    python3 bench/corpus.py report                              # includes the triage table below

A triage file is ``bench/corpus/triage/<owner>+<name>[.seedN].yaml`` (one per tree: the report's table counts every
file here; a triage a later one replaces moves to ``bench/corpus/triage/earlier/``, kept as history and not counted)::

    tree: owner/name
    commit: <the pinned commit>
    trtlint: <trtlint's commit the findings came from>
    seed: 31
    findings_total: N
    sampled: K
    items:
      - {rule: TRT205, file: src/x.cpp, line: 12, verdict: true, why: "..."}

``recheck`` carries the verdicts to a later run: each judged finding (rule, file, line) is looked up among that
tree's current default findings (``diagnostics`` in the harness's result), so a precision change shows which false
and noise findings it removed and, above all, whether it removed a finding judged true (a regression to read).

``verdict`` is ``true`` (the defect the rule describes is there, and the message is accurate), ``false`` (the claim
is wrong) or ``noise`` (true in letter, not worth a user's reading; ``why`` says why).

The sample: the default findings sorted by (rule, file, line, message), then ``random.Random(seed).sample`` of
``min(n, len)`` of them, listed in sorted order.
"""

from __future__ import annotations

import random
from pathlib import Path

import yaml

TRIAGE_DIR = Path(__file__).resolve().parent / "corpus" / "triage"
VERDICTS = ("true", "false", "noise")


def sample(diagnostics: list[dict], seed: int = 31, n: int = 20) -> list[dict]:
    """The sampled findings, in sorted order (see the module's docstring)."""
    def key(d: dict) -> tuple:
        loc = d.get("location") or {}
        return (d["code"], loc.get("path", ""), loc.get("line", 0), d["message"])

    ordered = sorted(diagnostics, key=key)
    picked = random.Random(seed).sample(ordered, min(n, len(ordered)))
    return sorted(picked, key=key)


def skeleton(tree: str, commit: str, trtlint_rev: str, diagnostics: list[dict], seed: int, n: int) -> str:
    items = sample(diagnostics, seed, n)
    doc = {"tree": tree, "commit": commit, "trtlint": trtlint_rev, "seed": seed, "findings_total": len(diagnostics),
           "sampled": len(items),
           "items": [{"rule": d["code"], "file": d["location"]["path"], "line": d["location"]["line"],
                      "message": d["message"], "verdict": "?", "why": ""} for d in items]}
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=120)


def _verdict(v) -> str:
    # YAML reads a bare true/false as a boolean
    return {True: "true", False: "false"}.get(v, str(v))


def load(directory: Path = TRIAGE_DIR) -> list[dict]:
    """Every triage file, checked: a verdict outside ``VERDICTS`` or a count that disagrees raises ValueError."""
    out = []
    for p in sorted(directory.glob("*.yaml")):
        doc = yaml.safe_load(p.read_text(encoding="utf-8"))
        items = doc.get("items") or []
        for it in items:
            v = _verdict(it.get("verdict"))
            if v not in VERDICTS:
                raise ValueError(f"{p.name}: {it.get('rule')} {it.get('file')}:{it.get('line')}: verdict {v!r} is not one of {VERDICTS}")
            it["verdict"] = v
        if doc.get("sampled") != len(items):
            raise ValueError(f"{p.name}: sampled is {doc.get('sampled')} but {len(items)} items are listed")
        doc["_file"] = p.name
        out.append(doc)
    return out


def render(docs: list[dict]) -> str:
    if not docs:
        return ""
    L = ["Hand triage of sampled default findings (`bench/corpus/triage/`, sample drawn by `bench/corpus.py sample`):",
         "",
         "| tree | trtlint | findings | sampled (seed) | true | false | noise | share true |",
         "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    tot = {v: 0 for v in VERDICTS}
    for d in docs:
        c = {v: sum(1 for it in d["items"] if it["verdict"] == v) for v in VERDICTS}
        for v in VERDICTS:
            tot[v] += c[v]
        share = f"{100 * c['true'] / d['sampled']:.0f} %" if d["sampled"] else "–"
        L.append(f"| {d['tree']} | {d.get('trtlint', '')} | {d.get('findings_total', '')} | {d['sampled']} ({d.get('seed', '')}) | "
                 f"{c['true']} | {c['false']} | {c['noise']} | {share} |")
    n = sum(tot.values())
    share = f"{100 * tot['true'] / n:.0f} %" if n else "–"
    L.append(f"| **all** | | | **{n}** | **{tot['true']}** | **{tot['false']}** | **{tot['noise']}** | {share} |")
    L.append("")
    wrong = [(d["tree"], it) for d in docs for it in d["items"] if it["verdict"] != "true"]
    if wrong:
        L.append("The findings judged false or noise:")
        L.append("")
        for tree, it in wrong:
            L.append(f"- {it['verdict']}: {tree.split('/')[1]} `{it['file']}:{it['line']}` {it['rule']}: {it.get('why', '')}")
        L.append("")
    return "\n".join(L) + "\n"


def recheck(docs: list[dict], results: dict[str, dict]) -> list[dict]:
    """Per triage file, what became of its judged findings in the current results (``results``: tree -> the
    harness's result, with its ``diagnostics``): ``kept``/``merged``/``gone`` count verdicts (*merged*: no longer a
    finding of its own, but a site another finding of the same rule counts with its own, its ``also``); ``gone_true``
    lists the judged true findings no longer reported at all. A tree without current diagnostics is left out."""
    out = []
    for d in docs:
        res = results.get(d["tree"])
        if not res or "diagnostics" not in res:
            continue
        now: dict[tuple, set] = {}
        counted: set[tuple] = set()  # (rule, file, line) a finding counts with its own
        for x in res["diagnostics"]:
            now.setdefault((x["code"], x["path"], x["line"]), set()).add(x.get("message", ""))
            counted.update((a[2] if len(a) > 2 else x["code"], a[0], a[1]) for a in x.get("also") or ())
        kept = {v: 0 for v in VERDICTS}
        merged = {v: 0 for v in VERDICTS}
        gone = {v: 0 for v in VERDICTS}
        reworded = {v: 0 for v in VERDICTS}  # kept, but its message is no longer the one judged: read it again
        gone_true = []
        for it in d["items"]:
            key = (it["rule"], it["file"], it["line"])
            msgs = now.get(key)
            into = msgs is None and key in counted
            (kept if msgs is not None else merged if into else gone)[it["verdict"]] += 1
            if msgs is not None and it.get("message") and it["message"] not in msgs:
                reworded[it["verdict"]] += 1
            if msgs is None and not into and it["verdict"] == "true":
                gone_true.append(it)
        out.append({"tree": d["tree"], "file": d.get("_file", ""), "trtlint": d.get("trtlint", ""),
                    "findings_then": d.get("findings_total"), "findings_now": len(res["diagnostics"]),
                    "kept": kept, "merged": merged, "gone": gone, "reworded": reworded, "gone_true": gone_true})
    return out


def render_recheck(rows: list[dict]) -> str:
    if not rows:
        return ""
    L = ["The judged findings at the current results (`corpus_triage.recheck`: a judged finding is kept when the same "
         "rule still reports the same file and line, *reworded* when its message is not the one judged, *merged* when "
         "it is no finding of its own but a site another finding of the same rule counts with its own and names as "
         "related; the share is over the kept and merged ones, as judged):",
         "",
         "| triage file | findings then → now | kept: true / false / noise | of them reworded | merged: true / false / noise | gone: true / false / noise | share true of kept and merged |",
         "| --- | ---: | --- | --- | --- | --- | ---: |"]
    for r in rows:
        k, g, w = r["kept"], r["gone"], r.get("reworded") or {v: 0 for v in VERDICTS}
        m = r.get("merged") or {v: 0 for v in VERDICTS}
        n = sum(k.values()) + sum(m.values())
        share = f"{100 * (k['true'] + m['true']) / n:.0f} %" if n else "–"
        L.append(f"| {r['file']} ({r['trtlint']}) | {r['findings_then']} → {r['findings_now']} | "
                 f"{k['true']} / {k['false']} / {k['noise']} | {w['true']} / {w['false']} / {w['noise']} | "
                 f"{m['true']} / {m['false']} / {m['noise']} | {g['true']} / {g['false']} / {g['noise']} | {share} |")
    L.append("")
    lost = [(r["tree"], it) for r in rows for it in r["gone_true"]]
    if lost:
        L.append("Findings judged true that are no longer reported (each read: a moved line or a lost true finding):")
        L.append("")
        for tree, it in lost:
            L.append(f"- {tree.split('/')[1]} `{it['file']}:{it['line']}` {it['rule']}")
        L.append("")
    return "\n".join(L) + "\n"
