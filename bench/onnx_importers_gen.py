"""Generate the per-release part of ``rules/onnx_tensorrt.yaml``: since which TensorRT release TensorRT's ONNX parser
(onnx-tensorrt) imports each op itself, and until which release an op it no longer imports was imported.

    python3 bench/onnx_importers_gen.py ONNX_TENSORRT_GIT_DIR [--write]

Inputs (facts only: op names; no code of the parser is copied):

- the release branches of onnx/onnx-tensorrt in a git directory (a clone or a bare mirror): for each branch of
  ``RELEASES`` the op names of every ``DEFINE_BUILTIN_OP_IMPORTER(<op>)`` in its importer file
  (``builtin_op_importers.cpp`` up to 9.3, ``onnxOpImporters.cpp`` from 10.0); the branch must sit at the commit
  recorded here (the run stops otherwise). These lists equal the ops each release's ``docs/operators.md`` marks
  supported (checked by this script: ``Y`` rows versus importers, the parser's ``TRT_*`` ops aside);
- for the releases after 10.1 (no release branch in the stored copy): the ``docs/Changelog.md`` of onnx-tensorrt
  (newest entry TensorRT 10.15 GA, 2026-2-2) names the release that added an importer (``LATER``); the newest
  importer list is the pack's ``ops`` as shipped (every ``DEFINE_BUILTIN_OP_IMPORTER`` of main's
  ``onnxOpImporters.cpp``, TensorRT 10.15), and its ``docs/operators.md`` (10.15) marks exactly those ops (the
  ``TRT_*`` ones aside) supported;
- an op of the newest list that no release branch imports and the changelog does not date is ``undated``: first
  imported by a release after 10.1 and by 10.15 at the latest.

Without ``--write`` the script prints what it would write and the differences from the shipped pack.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import yaml

# release -> (branch, commit): the release branches of onnx/onnx-tensorrt read (the last commit of each branch)
RELEASES = {
    "8.5": ("8.5-GA", "fdeeaca87ad2eef316aafb016e1822502f383eea"),
    "8.6": ("8.6-GA", "ee0b139bc68567a89618c1d84dcd461cc144aad4"),
    "9.0": ("9.0-GA", "9d2d786c98129ecab62be0759d1ba2e5791ee424"),
    "9.1": ("9.1", "877b5dccf5779d7d7dfa0c45b9c11cbee3b285ce"),
    "9.2": ("9.2", "306247b30da17ec10b578d17c408fe04864d6fe5"),
    "9.3": ("9.3", "1def182e2a04e939130b1070151a048321c6719c"),
    "10.0": ("10.0-GA", "73f629e04a68765647010b98dd94257282d05d11"),
    "10.1": ("10.1-GA", "96e781103cfc4adf4a6bb557e94bac8e693f6f4c"),
}
NEWEST = "10.15"
# op -> the release whose changelog entry added it (docs/Changelog.md of onnx-tensorrt, entries 10.2 to 10.15)
LATER = {
    "BlackmanWindow": "10.4",  # "Added support for BlackmanWindow, HammingWindow, and HannWindow operations"
    "HammingWindow": "10.4",
    "HannWindow": "10.4",
    "STFT": "10.5",  # "Added support for real-valued STFT operations"
    "TRT_MXFP8QuantizeLinear": "10.12",  # "Added support for custom MXFP8 quantization operations"
    "TRT_MXFP8DequantizeLinear": "10.12",
    "TRT_MXFP8DynamicQuantize": "10.12",
    "Attention": "10.14",  # "Added support for the Attention operator"
    "RotaryEmbedding": "10.15",  # "Added support for RotaryEmbedding, RMSNormalization and TensorScatter"
    "RMSNormalization": "10.15",
    "TensorScatter": "10.15",
}
# not ops: the parser's own dispatch targets and the macro's definition
NOT_OPS = {"op", "FallbackPluginImporter", "LocalFunctionImporter"}
PACK = Path(__file__).resolve().parent.parent / "rules" / "onnx_tensorrt.yaml"


def git(gitdir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True, text=True).stdout


def release_ops(gitdir: str, branch: str, commit: str) -> tuple[set, set]:
    """(importers, ops operators.md marks supported) of a release branch."""
    head = git(gitdir, "rev-parse", branch).strip()
    if head != commit:
        sys.exit(f"branch {branch} is at {head}, not at the recorded {commit}: update RELEASES deliberately")
    files = git(gitdir, "ls-tree", "--name-only", commit).split()
    src = next(f for f in ("onnxOpImporters.cpp", "builtin_op_importers.cpp") if f in files)
    text = git(gitdir, "show", f"{commit}:{src}")
    ops = set(re.findall(r"DEFINE_BUILTIN_OP_IMPORTER\(\s*([A-Za-z0-9_]+)", text)) - NOT_OPS
    doc = git(gitdir, "show", f"{commit}:docs/operators.md")
    marked = {m.group(1) for m in re.finditer(r"^\|\s*([A-Za-z0-9_]+)\s*\|\s*Y", doc, re.M)}
    return ops, marked


def generate(gitdir: str) -> dict:
    pack = yaml.safe_load(PACK.read_text(encoding="utf-8"))["onnx_importers"]
    shipped_until = pack.get("until") or {}
    newest = {op for op in pack["ops"] if op not in shipped_until}
    per: dict[str, set] = {}
    for rel, (branch, commit) in RELEASES.items():
        ops, marked = release_ops(gitdir, branch, commit)
        if {o for o in ops if not o.startswith("TRT_")} != marked:
            print(f"note: {rel}: importers and operators.md differ: {sorted(({o for o in ops if not o.startswith('TRT_')}) ^ marked)}")
        per[rel] = ops
    rels = list(RELEASES)
    since, until, undated = {}, {}, {}
    every = set().union(*per.values()) | newest
    for op in sorted(every):
        present = [r for r in rels if op in per[r]]
        if present:
            if present[0] != rels[0]:
                since[op] = present[0]
            if op not in newest:
                until[op] = present[-1]
        elif op in LATER:
            since[op] = LATER[op]
        else:
            undated[op] = [next_release(rels[-1]), NEWEST]
    return {"ops": sorted(every), "since": since, "until": until, "undated": undated}


def next_release(rel: str) -> str:
    major, minor = rel.split(".")
    return f"{major}.{int(minor) + 1}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gitdir", help="a git directory of onnx/onnx-tensorrt with its release branches")
    ap.add_argument("--write", action="store_true", help=f"rewrite the per-release keys of {PACK.name}")
    a = ap.parse_args()
    got = generate(a.gitdir)
    data = yaml.safe_load(PACK.read_text(encoding="utf-8"))
    cur = data["onnx_importers"]
    for key in ("ops", "since", "until", "undated"):
        if cur.get(key) != got[key]:
            print(f"{key}: shipped {cur.get(key)!r}\n{' ' * len(key)}  generated {got[key]!r}")
    if a.write:
        text = PACK.read_text(encoding="utf-8")
        head = text[: text.index("onnx_importers:")]
        body = {"onnx_importers": {"parser": cur.get("parser"), "oldest": list(RELEASES)[0], "newest": NEWEST,
                                   "sources": {rel: f"{b} {c}" for rel, (b, c) in RELEASES.items()}
                                   | {"later": f"docs/Changelog.md entries 10.2 to {NEWEST}"},
                                   **got}}
        PACK.write_text(head + yaml.safe_dump(body, sort_keys=False, width=120), encoding="utf-8")
        print(f"wrote {PACK}")
    else:
        print(yaml.safe_dump({k: got[k] for k in ("since", "until", "undated")}, sort_keys=False, width=120))


if __name__ == "__main__":
    main()
