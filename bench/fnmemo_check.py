"""The per-function memo of the C++ body walk (trtlint/frontends/cpp/fnmemo.py) against from-scratch extractions on a
real tree: per unit, a line typed into the body of each of its first N functions (and a comment appended), each
extracted with the memo of the unit's text and again without; prints the functions reused/walked and every unit
whose facts differ (exit 1).

    python bench/fnmemo_check.py TREE [--include DIR ...] [--units 10] [--edits 6] [--glob 'cpp/plugins/**/*.cpp']
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from trtlint.frontends import ExtractContext, SourceFile
from trtlint.frontends.cpp import base, fnmemo, unit


def edits(text: str, n: int) -> list[tuple[str, str]]:
    """(label, new text): a statement typed on the line after each of the first ``n`` function bodies' opening
    brace (a line that is only ``{`` after a line with ``)``), and a comment appended."""
    lines = text.splitlines(keepends=True)
    out = []
    for i in range(1, len(lines)):
        if lines[i].strip() == "{" and ")" in lines[i - 1] and not re.match(r"\s*(namespace|class|struct|enum)\b", lines[i - 1]):
            indent = re.match(r"\s*", lines[i]).group(0)
            out.append((f"line {i + 2}", "".join(lines[:i + 1] + [indent + "    (void) 0;\n"] + lines[i + 1:])))
            if len(out) >= n:
                break
    out.append(("comment appended", text + "\n// trtlint: one file changed\n"))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tree")
    ap.add_argument("--include", action="append", default=None)
    ap.add_argument("--units", type=int, default=10)
    ap.add_argument("--edits", type=int, default=6)
    ap.add_argument("--glob", default="cpp/plugins/**/*.cpp")
    args = ap.parse_args()
    root = Path(args.tree).resolve()
    inc = tuple(args.include) if args.include else ((str(root / "cpp"),) if (root / "cpp").is_dir() else ())
    ctx = ExtractContext(root=root, include_dirs=inc)
    base.load()
    bad = reused = walked = 0
    t_memo = t_fresh = 0.0
    for p in sorted(root.glob(args.glob))[:args.units]:
        rel = p.relative_to(root).as_posix()
        kind = "cuda" if p.suffix in (".cu", ".cuh") else "cpp"
        text = p.read_text(encoding="utf-8", errors="replace")
        for label, new in edits(text, args.edits):
            fnmemo.forget()
            unit.extract(SourceFile(path=p, rel=rel, kind=kind, digest="a", text=text), ctx)
            fnmemo.STATS.update(reused=0, walked=0)
            t = time.perf_counter()
            got = unit.extract(SourceFile(path=p, rel=rel, kind=kind, digest="b", text=new), ctx)
            t_memo += time.perf_counter() - t
            st = dict(fnmemo.STATS)
            fnmemo.forget()
            t = time.perf_counter()
            fresh = unit.extract(SourceFile(path=p, rel=rel, kind=kind, digest="b", text=new), ctx)
            t_fresh += time.perf_counter() - t
            reused += st["reused"]
            walked += st["walked"]
            same = got == fresh
            bad += not same
            print(f"{'same' if same else 'DIFFERENT'}  {rel}: {label}: reused {st['reused']}, walked {st['walked']}")
    print(f"{bad} differing; functions reused {reused}, walked {walked}; extraction {t_memo:.2f} s with the memo, "
          f"{t_fresh:.2f} s without")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
