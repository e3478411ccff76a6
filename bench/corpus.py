"""The corpus harness (issue 31): trtlint measured on 30+ pinned public TensorRT trees, without hand work.

    python3 bench/corpus.py fetch [--cache DIR] [--mirrors DIR] [--only REPO ...]
    python3 bench/corpus.py TREE [--json] [--mutate] [--cache DIR] [-j N]
    python3 bench/corpus.py all [--json] [--mutate] [--cache DIR] [-j N] [--only REPO ...]
    python3 bench/corpus.py report [--cache DIR] [--write docs/real-code.md]
    python3 bench/corpus.py sample TREE [--seed 31] [--n 20]

``fetch`` writes each tree of ``bench/corpus/trees.yaml`` at its pinned commit into
``--cache`` (default ``~/.cache/trtlint-corpus``) as ``<owner>+<name>@<sha12>``, from the bare mirror that the
session's ``fetch`` tool made (``/work/.mirror/<owner>+<name>/repo``), by ``git ls-tree -r`` and
``git cat-file --batch``: blobs the mirror lacks (it holds none of 4 MiB or more) are skipped and counted.

``TREE`` (a materialised directory, or a repository name of the corpus) runs the text-only census
(``corpus_census.py``) and trtlint on it (``check --format json`` for the findings and the run's own account of
what it could not analyse, then ``check --dump-index`` for the index), and compares: an item is *indexed* when the
index holds it, *reported* when the run named it (or its file) as not analysed (TRT004, TRT001, the partly analysed
units and the headers no unit includes of the summary), else *unindexed*: a silent blind spot. ``--mutate`` adds the seeded one-line defects of
``corpus_mutate.py``. ``--json`` prints the result; every run also writes it to ``<cache>/results/<tree>.json``,
which ``report`` turns into the generated tables of docs/real-code.md. ``$TRTLINT_CORPUS_RESULTS`` names another
results folder (so that runs of two checkouts side by side do not overwrite each other's results), and the seeded
runs' scratch copy then goes beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus_census  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
TREES = REPO / "bench" / "corpus" / "trees.yaml"
DEFAULT_CACHE = Path(os.environ.get("TRTLINT_CORPUS_CACHE", Path.home() / ".cache" / "trtlint-corpus"))
DEFAULT_MIRRORS = Path("/work/.mirror")
NOT_ANALYSED = {"TRT001", "TRT004"}
NEAR = 3  # lines: a multi-line call is indexed at its first or its name's line


def load_trees(path: Path = TREES) -> list[dict]:
    import yaml

    return yaml.safe_load(path.read_text())["trees"]


def tree_dirname(t: dict) -> str:
    return f"{t['repo'].replace('/', '+')}@{t['commit'][:12]}"


# --------------------------------------------------------------------------------------------------------- fetch


def materialise(mirror: Path, commit: str, dest: Path) -> dict:
    """Write the tree of ``commit`` from the bare repository ``mirror`` to ``dest``; return counts."""
    ls = subprocess.run(["git", "-C", str(mirror), "ls-tree", "-r", "-z", commit], capture_output=True, check=True).stdout
    entries = []
    skipped_links = skipped_modules = 0
    for rec in ls.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, typ, sha = meta.split()
        if typ != b"blob":
            skipped_modules += 1
            continue
        if mode == b"120000":
            skipped_links += 1
            continue
        entries.append((sha.decode(), path.decode("utf-8", "surrogateescape"), mode == b"100755"))
    tmp = dest.with_name(dest.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    proc = subprocess.Popen(["git", "-C", str(mirror), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    written = missing = 0
    nbytes = 0
    assert proc.stdin and proc.stdout
    for sha, rel, exe in entries:
        proc.stdin.write(sha.encode() + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            missing += 1
            continue
        data = proc.stdout.read(int(header[2]))
        proc.stdout.read(1)
        out = tmp / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
        if exe:
            out.chmod(0o755)
        written += 1
        nbytes += len(data)
    proc.stdin.close()
    proc.wait()
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    info = {"commit": commit, "files": written, "missing_blobs": missing, "symlinks_skipped": skipped_links,
            "submodules_skipped": skipped_modules, "bytes": nbytes}
    (dest.parent / (dest.name + ".json")).write_text(json.dumps(info))
    return info


def cmd_fetch(args) -> int:
    rc = 0
    for t in selected_trees(args):
        dest = args.cache / tree_dirname(t)
        mirror = args.mirrors / t["repo"].replace("/", "+") / "repo"
        if dest.is_dir() and (args.cache / (dest.name + ".json")).is_file():
            print(f"{t['repo']}: cached at {dest}")
            continue
        if not mirror.is_dir():
            print(f"{t['repo']}: no mirror at {mirror} (bring it with the fetch tool: github:{t['repo']})", file=sys.stderr)
            rc = 1
            continue
        have = subprocess.run(["git", "-C", str(mirror), "cat-file", "-e", t["commit"] + "^{commit}"], capture_output=True)
        if have.returncode != 0:
            print(f"{t['repo']}: the mirror lacks the pinned commit {t['commit']}", file=sys.stderr)
            rc = 1
            continue
        info = materialise(mirror, t["commit"], dest)
        print(f"{t['repo']}: {info['files']} files ({info['bytes'] >> 20} MiB), {info['missing_blobs']} blobs missing "
              f"from the mirror, {info['symlinks_skipped']} symlinks and {info['submodules_skipped']} submodules skipped")
    return rc


def selected_trees(args) -> list[dict]:
    trees = load_trees()
    if getattr(args, "only", None):
        trees = [t for t in trees if t["repo"] in args.only or t["repo"].split("/")[1] in args.only]
    return trees


# ------------------------------------------------------------------------------------------------------ trtlint


def trtlint(root: Path, *extra: str, jobs: int = 1, timeout: int = 3600) -> tuple[dict | None, str, float]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    cmd = [sys.executable, "-m", "trtlint", "check", str(root), "--root", str(root), "--no-progress", "-j", str(jobs), *extra]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=str(root))
    except subprocess.TimeoutExpired:
        return None, "timeout", time.monotonic() - t0
    dt = time.monotonic() - t0
    try:
        data = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        data = None
    return data, p.stderr, dt


def check_run(root: Path, jobs: int) -> tuple[dict | None, str, float]:
    return trtlint(root, "--format", "json", "--exit-zero", jobs=jobs)


def dump_run(root: Path, jobs: int) -> dict | None:
    data, _err, _dt = trtlint(root, "--dump-index", jobs=jobs)
    return data


_TAKEN = re.compile(r"^(TRT\d{3}): ")


def _also(d: dict) -> list:
    """The sites a finding counts together with its own (a macro's other expansions, one function's other calls of
    an API): its related locations whose message says so ("... here too"), as ``[path, line, rule]``; the rule is
    the finding's own, or that of the finding it took over at its call ("TRT304: ... here too")."""
    out = []
    for r in d.get("related") or ():
        msg = r.get("message") or ""
        if "here too" in msg:
            m = _TAKEN.match(msg)
            loc = r.get("location") or {}
            out.append([loc.get("path", ""), loc.get("line", 0), m.group(1) if m else d.get("code", "")])
    return out


def diag_key(d: dict) -> tuple:
    loc = d["location"]
    return (d["code"], loc["path"], loc["line"], d["message"])


# ------------------------------------------------------------------------------------------------------ compare


def _at(s: str) -> tuple[str, int]:
    path, _, line = s.rpartition(":")
    try:
        return path, int(line)
    except ValueError:
        return s, 0


class Index:
    """What the run indexed, in the shapes the comparison needs (from --dump-index)."""

    def __init__(self, dump: dict | None):
        dump = dump or {}
        self.classes: dict[str, set[tuple[str, str]]] = {"plugin": set(), "creator": set()}
        self.class_lines: dict[str, set[tuple[str, int]]] = {"plugin": set(), "creator": set()}
        self.registrations: set[tuple[str, int]] = set()
        self.fields_by_dir: dict[str, set[str]] = defaultdict(set)
        self.sites: set[tuple[str, int]] = set()  # emissions, lookups, route calls
        self.site_fields: dict[str, set[str]] = defaultdict(set)
        self.onnx_ops: set[tuple[str, str]] = set()
        groups = [dump] + list(dump.get("programs") or [])
        for g in groups:
            for side in ("plugin", "creator"):
                for c in g.get(side + "s") or []:
                    path, line = _at(c["at"])
                    self.classes[side].add((path, c["class"].split("::")[-1]))
                    self.class_lines[side].add((path, line))
                    d = str(Path(path).parent)
                    for f in c.get("fields") or []:
                        self.fields_by_dir[d].add(f.split(":")[0])
                    for f in c.get("serialized") or []:
                        self.fields_by_dir[d].add(f.split(":")[0])
                    for f in c.get("field_sites") or []:  # the file each field is built in (a class declared in a
                        self.site_fields[_at(f["at"])[0]].add(f["name"])  # header, its fields in a .cpp elsewhere)
                    for r in c.get("registered") or []:
                        self.registrations.add(_at(r))
        for e in dump.get("emissions") or []:
            path, line = _at(e["at"])
            self.sites.add((path, line))
            self.onnx_ops.add((path, e["op"]))
            self.site_fields[path].update(e.get("attrs") or [])
        for n in dump.get("model_nodes") or []:
            self.onnx_ops.add((n["at"], n["op"]))
        for key in ("lookup_sites", "route_call_sites"):
            for s in dump.get(key) or []:
                path, line = _at(s["at"])
                self.sites.add((path, line))
                self.site_fields[path].update(s.get("fields") or [])

    def near(self, pairs: set[tuple[str, int]], file: str, line: int) -> bool:
        return any((file, ln) in pairs for ln in range(line - NEAR, line + NEAR + 1))

    def holds(self, it) -> bool:
        k = it.kind
        if k in ("plugin-class", "creator-class", "plugin-base", "creator-base"):
            side = k.split("-")[0]
            return (it.file, it.name) in self.classes[side] or self.near(self.class_lines[side], it.file, it.line)
        if k == "registration":
            return self.near(self.registrations, it.file, it.line)
        if k in ("lookup", "emission"):
            return self.near(self.sites, it.file, it.line)
        if k == "field":
            d = str(Path(it.file).parent)
            return it.name in self.fields_by_dir.get(d, ()) or it.name in self.site_fields.get(it.file, ())
        if k == "onnx-node":
            return (it.file, it.name) in self.onnx_ops
        return False


def not_analysed(report: dict | None, stderr: str) -> tuple[set[str], list[str]]:
    """Files the run said it could not (fully) analyse, and the class names its TRT004 messages name."""
    files: set[str] = set()
    names: list[str] = []
    if report:
        for d in report.get("diagnostics", []):
            if d["code"] in NOT_ANALYSED:
                files.add(d["location"]["path"])
                files.update(r["location"]["path"] for r in d.get("related") or [])
                names.append(d["message"])
        an = (report.get("summary") or {}).get("analysis") or {}
        for u in an.get("partly_analysed_units") or []:
            files.add(u if isinstance(u, str) else u.get("unit", ""))
            if isinstance(u, dict):  # a missing include names a file of the tree (by its path's tail)
                names.extend(f"include:{m['name']}" for m in u.get("missing_includes") or [] if m.get("name"))
        # headers no unit includes, whose findings the run set aside and named (judge-unincluded-headers)
        files.update(h["path"] for h in an.get("unincluded_headers_not_judged") or [] if isinstance(h, dict))
        # Python make_node calls on a converter's own graph class, named
        files.update(w["path"] for w in an.get("emissions_not_followed") or [] if isinstance(w, dict))
        # Python calls handing a function PluginFields that no plugin helper of the project completes, named
        files.update(c["path"] for c in an.get("plugin_helper_calls_not_followed") or [] if isinstance(c, dict))
        # programs whose Makefile cannot run, whose findings the run set aside and named (judge-unrunnable-builds)
        files.update(f for b in an.get("unrunnable_builds_not_judged") or [] if isinstance(b, dict)
                     for f in b.get("files") or [])
        # code only a build option the project marks experimental or deprecated builds (judge-optional-builds)
        files.update(f for b in an.get("optional_builds_not_judged") or [] if isinstance(b, dict)
                     for f in b.get("files") or [])
    return files, names


def compare(items, dump, report, stderr) -> tuple[list, list]:
    idx = Index(dump)
    files, msgs = not_analysed(report, stderr)
    includes = [m[8:] for m in msgs if m.startswith("include:")]
    msgs = [m for m in msgs if not m.startswith("include:")]
    an = ((report or {}).get("summary") or {}).get("analysis") or {}
    if report is not None and not an.get("plugins") and not an.get("creators"):
        # the check analysed no class at all ("analysed 0 plugins, 0 creators"): what --dump-index's whole-tree
        # join holds was not checked, so no class counts as indexed
        idx.classes = {"plugin": set(), "creator": set()}
        idx.class_lines = {"plugin": set(), "creator": set()}
    # what the profile's exclude patterns kept out, named by the run ("not checked: docs/, ...")
    excluded = tuple(((report or {}).get("project") or {}).get("excluded_by_profile") or ())
    status = []
    for it in items:
        if any(it.file.endswith(inc) for inc in includes):
            files.add(it.file)
        if any(it.file == e or (e.endswith("/") and it.file.startswith(e)) for e in excluded):
            files.add(it.file)
        if it.dynamic and not idx.holds(it):
            st = "dynamic"  # a lookup or emission whose name the code computes: listed, not a blind spot
        elif it.kind.endswith("-base") and not idx.holds(it):
            st = "base"  # an intermediate base class: not a plugin TensorRT creates
        elif it.kind == "onnx-file":
            st = "reported" if it.file in files else "unindexed"
        elif idx.holds(it):
            st = "indexed"
        elif it.file in files or any(re.search(rf"\b{re.escape(it.name)}\b", m) for m in msgs if it.name != "?"):
            st = "reported"
        else:
            st = "unindexed"
        status.append(st)
    return status, [it for it, st in zip(items, status) if st == "unindexed"]


# ------------------------------------------------------------------------------------------------------- a tree


def resolve_tree(arg: str, cache: Path) -> tuple[Path, dict | None]:
    p = Path(arg)
    if p.is_dir():
        for t in load_trees():
            if p.resolve().name == tree_dirname(t):
                return p.resolve(), t
        return p.resolve(), None
    for t in load_trees():
        if arg in (t["repo"], t["repo"].split("/")[1], tree_dirname(t)):
            d = cache / tree_dirname(t)
            if not d.is_dir():
                raise SystemExit(f"corpus: {t['repo']} is not fetched (python3 bench/corpus.py fetch --only {t['repo']})")
            return d, t
    raise SystemExit(f"corpus: {arg}: no such directory or corpus tree")


def plugin_names(dump: dict | None) -> set | None:
    """The plugin names a route can resolve to: the creators the run indexed and TensorRT's own plugin library
    (rules/tensorrt_plugins.yaml, current and retired); None without an index."""
    if not dump:
        return None
    import yaml

    names = {c.get("name") for c in dump.get("creators", []) if c.get("name")}
    data = yaml.safe_load((REPO / "rules" / "tensorrt_plugins.yaml").read_text(encoding="utf-8"))
    ext = data.get("external_creators", {})
    return names | set(ext.get("creators", {})) | set(ext.get("retired", {}))


def fielded_names(dump: dict | None) -> set | None:
    """The plugin names some creator of which declares fields: the tree's creators the run indexed with fields,
    and TensorRT's own plugins that rules/tensorrt_plugin_fields.yaml lists fields of; None without an index."""
    if not dump:
        return None
    import yaml

    names = {c.get("name") for c in dump.get("creators", []) if c.get("name") and c.get("fields")}
    data = yaml.safe_load((REPO / "rules" / "tensorrt_plugin_fields.yaml").read_text(encoding="utf-8")) or {}
    return names | set(_plugin_field_names(data))


def named_field_names(dump: dict | None) -> set | None:
    """The plugin names some creator of which declares fields or reads one by name (the ``fielded_names`` and the
    tree's creators whose createPlugin the run saw read a field name); None without an index."""
    fielded = fielded_names(dump)
    if fielded is None:
        return None
    return fielded | {c.get("name") for c in dump.get("creators", []) if c.get("name") and c.get("reads")}


def lookup_sites(dump: dict | None) -> dict | None:
    """file -> [(plugin name, its fields)] of the lookups the run's index holds (--dump-index's lookup_sites);
    None without an index."""
    if not dump:
        return None
    out: dict = {}
    for s in dump.get("lookup_sites", []):
        out.setdefault(s.get("at", "").rsplit(":", 1)[0], []).append((s.get("name"), s.get("fields") or []))
    return out


def _plugin_field_names(data) -> set:
    """The plugin names of rules/tensorrt_plugin_fields.yaml that some release lists a field of."""
    rels = ((data.get("tensorrt_plugin_fields") or {}).get("releases") or {}).values()
    return {c["name"] for rel in rels for c in (rel or {}).get("creators") or [] if c.get("fields")}


def run_tree(root: Path, tree: dict | None, jobs: int, mutate: bool) -> dict:
    check_root = root / tree["subdir"] if tree and tree.get("subdir") else root
    t0 = time.monotonic()
    items = corpus_census.census(check_root)
    census_s = time.monotonic() - t0
    report, stderr, dt = check_run(check_root, jobs)
    dump = dump_run(check_root, jobs)
    status, unindexed = compare(items, dump, report, stderr)
    diags = (report or {}).get("diagnostics", [])
    out = {
        "tree": tree["repo"] if tree else root.name,
        "commit": tree["commit"] if tree else None,
        "kind": tree.get("kind") if tree else None,
        "build": tree.get("build") if tree else None,
        "census": [dict(it.to_json(), status=st) for it, st in zip(items, status)],
        "unindexed": [it.to_json() for it in unindexed],
        "findings": dict(sorted(Counter(d["code"] for d in diags).items())),
        # each default finding, for the triage recheck (corpus_triage.recheck): what became of a judged finding
        # (``also``: the sites a finding counts together with its own, its related locations "... here too")
        "diagnostics": [{"code": d["code"], "path": (d.get("location") or {}).get("path", ""),
                         "line": (d.get("location") or {}).get("line", 0), "message": d.get("message", ""),
                         **({"also": also} if (also := _also(d)) else {})}
                        for d in diags],
        "analysed": stderr.strip().splitlines()[1:2] if stderr else [],
        "run_ok": report is not None and dump is not None,
        "time_s": round(dt, 2),
        "census_s": round(census_s, 2),
    }
    if report is None:
        out["error"] = stderr[-2000:]
    if mutate and report is not None:
        import corpus_mutate

        known = plugin_names(dump)
        muts, negs, mt, dropped = corpus_mutate.run_mutations(check_root, items, diags, jobs,
                                                              lambda r: check_run(r, jobs), known, fielded_names(dump),
                                                              named_field_names(dump), lookup_sites(dump))
        out["route_edits_not_judgeable"] = dropped
        out["mutations"] = muts
        out["negatives"] = negs
        out["negatives_flagged"] = sum(1 for n in negs if n["flagged"])
        out["mutate_time_s"] = round(mt, 2)
    return out


def save(cache: Path, res: dict) -> None:
    """Write the result; the time of the tree's first run (its cache cold) is carried over as ``cold_time_s``."""
    d = Path(os.environ["TRTLINT_CORPUS_RESULTS"]) if os.environ.get("TRTLINT_CORPUS_RESULTS") else cache / "results"
    d.mkdir(parents=True, exist_ok=True)
    p = d / (res["tree"].replace("/", "+") + ".json")
    res.setdefault("cold_time_s", res["time_s"])
    if p.is_file():
        old = json.loads(p.read_text())
        if old.get("commit") == res.get("commit"):
            res["cold_time_s"] = old.get("cold_time_s", old["time_s"])
            if "mutations" not in res and "mutations" in old:  # a census-only run keeps the seeded results
                for k in ("mutations", "negatives", "negatives_flagged", "mutate_time_s", "route_edits_not_judgeable"):
                    if k in old:
                        res[k] = old[k]
                res["mutations_from"] = old.get("mutations_from", "an earlier --mutate run")
    p.write_text(json.dumps(res, indent=1))


def summary_line(res: dict) -> str:
    n = len(res["census"])
    s = f"{res['tree']}: census {n}, unindexed {len(res['unindexed'])}, findings {sum(res['findings'].values())}, {res['time_s']} s"
    if "mutations" in res:
        m = res["mutations"]
        s += f", seeded {sum(1 for x in m if x['found'])}/{len(m)}, negatives flagged {res['negatives_flagged']}/{len(res['negatives'])}"
    return s


def cmd_tree(args) -> int:
    root, tree = resolve_tree(args.tree, args.cache)
    res = run_tree(root, tree, args.jobs, args.mutate)
    save(args.cache, res)
    print(json.dumps(res, indent=1) if args.json else summary_line(res))
    return 0 if res["run_ok"] else 1


def cmd_sample(args) -> int:
    """A triage skeleton (``corpus_triage``) of the tree's default findings, on stdout."""
    import corpus_triage

    if not args.tree_arg:
        raise SystemExit("corpus: sample needs a tree")
    root, tree = resolve_tree(args.tree_arg, args.cache)
    check_root = root / tree["subdir"] if tree and tree.get("subdir") else root
    # (no cache: a triage reads a fresh run, and writes nothing into the tree it judges)
    report, stderr, _dt = trtlint(check_root, "--format", "json", "--exit-zero", "--no-cache", jobs=args.jobs)
    if report is None:
        print(f"corpus: the check gave no report: {stderr.strip()[-500:]}", file=sys.stderr)
        return 1
    rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    sys.stdout.write(corpus_triage.skeleton(tree["repo"] if tree else root.name, tree["commit"] if tree else "", rev,
                                            report.get("diagnostics", []), args.seed, args.n))
    return 0


def cmd_all(args) -> int:
    results = []
    for t in selected_trees(args):
        d = args.cache / tree_dirname(t)
        if not d.is_dir():
            print(f"{t['repo']}: not fetched, skipped", file=sys.stderr)
            continue
        res = run_tree(d, t, args.jobs, args.mutate)
        save(args.cache, res)
        results.append(res)
        print(summary_line(res), file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(results, indent=1))
    return 0


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(prog="bench/corpus.py")
    ap.add_argument("what", help="fetch | all | report | a tree (directory or corpus repository)")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--mutate", action="store_true")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--write", type=Path, help="report: replace the generated section of this markdown file")
    ap.add_argument("tree_arg", nargs="?", help="sample: the tree")
    ap.add_argument("--seed", type=int, default=31, help="sample: the random seed")
    ap.add_argument("--n", type=int, default=20, help="sample: how many findings (all when fewer)")
    args = ap.parse_args(argv)
    args.cache = args.cache.expanduser()
    if args.what == "fetch":
        return cmd_fetch(args)
    if args.what == "all":
        return cmd_all(args)
    if args.what == "report":
        import corpus_report

        return corpus_report.cmd_report(args)
    if args.what == "sample":
        return cmd_sample(args)
    args.tree = args.what
    return cmd_tree(args)


if __name__ == "__main__":
    sys.exit(main())
