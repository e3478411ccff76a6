"""Shared by the test-wiring rules (TRT402, TRT403): the project's test-list settings and selector logic."""

from __future__ import annotations

from typing import Iterable, Optional

from trtlint.base.facts import DefinedTest, ListedTestEntry


def test_list_settings(index) -> Optional[dict]:
    """``{files, selector, test_files}`` from config (``test-lists``) or the profile; None when the project
    does not select its tests by list."""
    cfg = getattr(index.settings, "test_lists", None) or index.profile.test_lists
    if not cfg or not cfg.get("files"):
        return None
    return {
        "files": list(cfg["files"]),
        "selector": cfg.get("selector", "nodeid"),
        "test_files": list(cfg.get("test_files") or ["**/test_*.py", "**/*_test.py"]),
    }


def list_entries(index, cfg: dict) -> list[ListedTestEntry]:
    spec = index.glob_matcher(cfg["files"])
    out: list[ListedTestEntry] = []
    for path, ff in sorted(index.files.items()):
        if ff.test_entries and spec is not None and spec.match_file(path):
            out.extend(ff.test_entries)
    return out


def list_files(index, cfg: dict) -> list[str]:
    spec = index.glob_matcher(cfg["files"])
    return sorted(p for p, ff in index.files.items() if ff.kind == "yaml" and spec is not None and spec.match_file(p))


def python_tests(index, cfg: dict) -> dict[str, tuple[DefinedTest, ...]]:
    spec = index.glob_matcher(cfg["test_files"])
    return {
        p: ff.test_cases
        for p, ff in sorted(index.files.items())
        if ff.kind == "python" and ff.test_cases and spec is not None and spec.match_file(p)
    }


def split_entry(entry: str) -> tuple[str, Optional[str], Optional[str], Optional[str]]:
    """``path::Class::func[param]`` -> (path, class, function, param); function None for a bare path."""
    parts = entry.split("::")
    path = parts[0]
    cls = func = param = None
    if len(parts) >= 3:
        cls, func = parts[-2], parts[-1]
    elif len(parts) == 2:
        func = parts[1]
    if func and "[" in func:
        func, _, rest = func.partition("[")
        param = rest.rstrip("]")
    return path, cls, func, param


def selected_names(entries: Iterable[ListedTestEntry]) -> set[str]:
    """Function-name selector: the base names (parameters dropped) the lists select, in any module."""
    out = set()
    for e in entries:
        last = e.entry.split("::")[-1]
        out.add(last.split("[")[0])
    return out


def nodeid_selects(entry: str, path: str, test: DefinedTest) -> bool:
    epath, cls, func, _ = split_entry(entry)
    epath = epath.rstrip("/")
    if func is None:
        return path == epath or path.startswith(epath + "/")
    return path == epath and func == test.name and (cls is None or cls == test.cls)
