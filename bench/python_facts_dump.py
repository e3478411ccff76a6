"""Dump the Python frontend's facts of many files, and compare two dumps (identity check for speed work).

    python bench/python_facts_dump.py OUT.json [TREE ...] [--against BEFORE.json]

Extracts every ``*.py`` file under each TREE (default: /work/repos/edgellm, /work/repos/torchtrt,
/work/repos/trt and the projects in tests/fixtures), with the tree's own settings/profile context, plus
every Python file of every rule's VALID/INVALID example (default context), and writes
``{"tree:rel": to_json(FileFacts)}`` to OUT.json. With ``--against``, prints every file whose facts differ
(first differing path inside the JSON) and exits 1 when any does. The trees are only read.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
DEFAULT_TREES = ["/work/repos/edgellm", "/work/repos/torchtrt", "/work/repos/trt"]


def _first_diff(a, b, path="") -> str:
    if type(a) is not type(b):
        return f"{path}: {a!r:.200} != {b!r:.200}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                return _first_diff(a.get(k), b.get(k), f"{path}.{k}")
        return path
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_diff(x, y, f"{path}[{i}]")
        return path
    return f"{path}: {a!r:.200} != {b!r:.200}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("trees", nargs="*")
    ap.add_argument("--against", type=Path)
    a = ap.parse_args()
    from trtlint.checks.registry import all_rules
    from trtlint.config.settings import load_settings
    from trtlint.index.discover import _digest
    from trtlint.pipeline.extract import make_context
    from trtlint.base.facts import to_json
    from trtlint.frontends import ExtractContext, SourceFile
    from trtlint.frontends import python as pyfe
    from trtlint.config.packs import detect_profile, load_packs

    trees = a.trees or DEFAULT_TREES + sorted(str(p) for p in (HERE / "tests" / "fixtures").iterdir() if p.is_dir())
    packs = load_packs()
    out: dict = {}
    for tree in trees:
        root = Path(tree).resolve()
        settings = load_settings(root)
        profile = detect_profile(packs, root, settings.profile)
        ctx = make_context(settings, profile, root)
        files = sorted(p for p in root.rglob("*.py") if ".git" not in p.parts and ".trtlint_cache" not in p.parts)
        t0 = time.process_time()
        for p in files:
            rel = p.relative_to(root).as_posix()
            src = SourceFile(path=p, rel=rel, kind="python", digest=_digest(p) or "")
            out[f"{root.name}:{rel}"] = to_json(pyfe.extract(src, ctx))
        print(f"{root.name}: {len(files)} files, {time.process_time() - t0:.2f} s CPU", file=sys.stderr)
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="pyfacts-"))
    ctx = ExtractContext(root=tmp)
    n = 0
    for rule in all_rules():
        for kind, exs in (("valid", rule.VALID), ("invalid", rule.INVALID)):
            for i, ex in enumerate(exs):
                for rel, text in ex["files"].items():
                    if rel.endswith(".py"):
                        if isinstance(text, bytes):  # e.g. a badly encoded file: read from disk, as a run does
                            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
                            (tmp / rel).write_bytes(text)
                            src = SourceFile(path=tmp / rel, rel=rel, kind="python", digest="x")
                        else:
                            src = SourceFile(path=tmp / rel, rel=rel, kind="python", digest="x", text=text)
                        out[f"{rule.code}-{kind}-{i}:{rel}"] = to_json(pyfe.extract(src, ctx))
                        n += 1
    print(f"rule examples: {n} files", file=sys.stderr)
    return write_and_compare(out, a.out, a.against)


def write_and_compare(out: dict, path: Path, against: Path | None) -> int:
    """Write a dump; with ``against``, print every file whose facts differ from that dump's and return 1 when
    any does (shared with bench/cpp_facts_dump.py)."""
    path.write_text(json.dumps(out, sort_keys=True, indent=0))
    if against is None:
        return 0
    before = json.loads(against.read_text())
    after = json.loads(json.dumps(out))
    bad = 0
    for k in sorted(set(before) | set(after)):
        if before.get(k) != after.get(k):
            bad += 1
            print(f"DIFF {k}: {_first_diff(before.get(k), after.get(k))}")
    print(f"{len(after)} files compared, {bad} differ", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
