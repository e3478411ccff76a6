"""The editor's session against a fresh one: replay edits on a copy of a tree and compare the findings after each.

    python bench/edit_replay.py --tree TREE [--file REL --line N] [--helper REL --helper-line N] [--select-all]

Copies TREE to a temporary directory (never writes it), loads a ``Session`` there (in process: each edited buffer is
extracted by ``extract_one``, as ``/tmp``'s timing scripts do) and checks; then, per edit, sets the buffers, checks,
and compares the findings (code, place, symbol, message, notes, severity, related locations) with those of a fresh
``Session`` over the same texts (its facts of the unchanged files from the copy's cache, with no rule memo and no
walks kept: ``trtlint.checks.reads.WalkCarry``). The edits: ``cudaMalloc``, a ``throw``, ``exit(1)`` and a
``cudaStreamSynchronize`` typed at ``--line`` of ``--file`` (inside ``enqueue``) and at ``--helper-line`` of
``--helper`` (inside a function ``enqueue`` calls, in another file), each undone, then edits of both files at once
undone one by one. Prints one line per edit (SAME / DIFF, the codes found in the edited files, the check's time,
what was taken from the check before by kind) and exits 1 when any differs or a rule failed (TRT001).

The defaults are TensorRT Edge-LLM 0.5.0's: ``attentionPlugin.cpp``'s ``enqueue`` and the
``calCuQCuKVSeqLensAndKVEndIdxs`` launcher it calls in ``utilKernels.cu``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from trtlint.editor.session import Session  # noqa: E402
from trtlint.pipeline.extract import extract_one  # noqa: E402

LINES = {
    "cudaMalloc": "void* trtlint_p = nullptr; cudaMalloc(&trtlint_p, 64);",
    "throw": 'if (stream == nullptr) throw std::runtime_error("trtlint");',
    "exit": "if (stream == nullptr) exit(1);",
    "sync": "cudaStreamSynchronize(stream);",
}


def keys(diags) -> list[tuple]:
    return [(d.code, d.span.path, d.span.line, d.span.col, d.symbol, d.message, tuple(d.notes), d.severity.value,
             tuple((r.span.path, r.span.line, r.span.col, r.message) for r in d.related)) for d in diags]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", required=True)
    ap.add_argument("--file", default="cpp/plugins/attentionPlugin/attentionPlugin.cpp")
    ap.add_argument("--line", type=int, default=525, help="1-based line the edit is typed above (in enqueue)")
    ap.add_argument("--helper", default="cpp/kernels/contextAttentionKernels/utilKernels.cu")
    ap.add_argument("--helper-line", type=int, default=109)
    ap.add_argument("--select-all", action="store_true", help="every rule, not the default selection")
    args = ap.parse_args()

    tree = Path(tempfile.mkdtemp()) / "t"
    shutil.copytree(args.tree, tree, ignore=shutil.ignore_patterns(".trtlint_cache"))
    P, H = args.file, args.helper
    orig = {r: (tree / r).read_text() for r in (P, H)}
    at = {P: args.line - 1, H: args.helper_line - 1}

    def ins(rel: str, what: str) -> str:
        ls = orig[rel].split("\n")
        ls.insert(at[rel], LINES[what])
        return "\n".join(ls)

    edits: list[tuple[str, dict]] = []
    for rel in (P, H):
        for what in LINES:
            edits += [(f"{what} in {rel}", {rel: ins(rel, what)}), ("undo", {rel: orig[rel]})]
    edits += [("cudaMalloc in the first, a throw in the helper", {P: ins(P, "cudaMalloc"), H: ins(H, "throw")}),
              ("undo the helper", {H: orig[H]}), ("exit in the helper", {H: ins(H, "exit")}),
              ("undo the first", {P: orig[P]}), ("undo the helper", {H: orig[H]})]

    overrides = {"select": ["ALL"]} if args.select_all else None
    s = Session(tree, jobs=2, overrides=overrides)
    s.load()
    s.check()
    s._extract_facts = lambda src: extract_one(src, s.ctx)
    texts = dict(orig)
    bad = 0
    for label, change in edits:
        texts.update(change)
        for rel, t in change.items():
            s.set_buffer(rel, t)
        carry = s.state.walk_carry
        h0 = dict(carry.hits_by_kind)
        t0 = time.perf_counter()
        got = keys(s.check())
        dt = time.perf_counter() - t0
        f = Session(tree, jobs=2, overrides=overrides)
        f.load()
        f._extract_facts = lambda src, f=f: extract_one(src, f.ctx)
        for rel, t in texts.items():
            f.set_buffer(rel, t)
        want = keys(f.check())
        f.close()
        same = got == want and not any(k[0] == "TRT001" for k in got)
        bad += not same
        codes = sorted({k[0] for k in got if k[1] in change})
        kept = {k: v - h0.get(k, 0) for k, v in carry.hits_by_kind.items() if v - h0.get(k, 0)}
        print(f"{'SAME' if same else 'DIFF'} {label:48s} {len(got)} findings, in the edited file(s) {codes}; "
              f"check {dt * 1000:.0f} ms; kept {kept}", flush=True)
        if not same:
            print("  only the session:", [k[:6] for k in got if k not in want][:5])
            print("  only the fresh one:", [k[:6] for k in want if k not in got][:5])
    s.close()
    print("ALL SAME" if not bad else f"{bad} DIFFERENT")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
