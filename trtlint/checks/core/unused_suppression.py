from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Edit, Fix, Severity
from trtlint.base.facts import Span
from ..base import Rule
from ..examples.contract import creator_cpp, onnxscript_py
from ..examples.hotpath import plugin_cpp
from ..registry import rule_code, unknown_selectors


_MALLOC = "    cudaMalloc(&p, 16);\n"


def _alloc(*parts: str, name: str = "FooPlugin") -> str:
    """A plugin whose enqueue holds ``parts`` after ``void* p``: each ``_MALLOC`` is a TRT301 finding."""
    return plugin_cpp("    void* p = nullptr;\n" + "".join(parts).rstrip("\n")).replace("FooPlugin", name)


class UnusedSuppression(Rule):
    """A suppression comment or a `per-file-ignores` entry that suppresses nothing.

    ## What it does
    After the other rules ran and their findings were filtered, looks at every inline suppression (C++, CUDA,
    Python, CMake, YAML): line comments (`trtlint: ignore[...]`), file-level ones (`trtlint: ignore-file[...]`,
    `trtlint: noqa: ...`, `trtlint: noqa-file ...`) and, in C, C++ and CUDA, clang-tidy's markers naming
    trtlint checks (`NOLINT(trtlint-TRT301)`, `NOLINTNEXTLINE(...)`, a `NOLINTBEGIN(...)` ... `NOLINTEND(...)`
    region), and at every `per-file-ignores` entry in the config. It reports each rule they name that hid
    no finding (and a bare `trtlint: ignore` or `ignore-file` that hid nothing). A bare NOLINT marker (or one
    naming `*`) is clang-tidy's as well and is never reported; one naming only other tools' checks
    (`NOLINT(bugprone-*)`) is no trtlint suppression. It also reports the suppressions that cannot hide
    anything: a `NOLINTBEGIN` without its `NOLINTEND` (same check list) after it, a `NOLINTEND` closing none,
    and a file-level comment written after code. To judge fairly, every rule runs when this one is
    enabled, also rules that are not selected (their findings are dropped): a suppression of a rule that is
    switched off today is not reported as unused. Rule names that do not exist are TRT003's business, not
    this rule's.

    ## Why it matters
    A suppression outlives the finding it was written for: the code is fixed, or moved, and the comment
    stays. It then hides the next, real, finding on that line (in that region, in that file) without anyone
    noticing. Stale suppressions also make a codebase look noisier than it is; an unpaired region marker
    hides nothing while it looks as if it did.

    ## Example
    ```cpp
    cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, stream);  // trtlint: ignore[TRT301]
    ```
    (nothing on that line allocates: the suppression is unused)

    ## Fix
    Remove it. `trtlint check --fix` does (a safe fix): it drops the unused rule from the bracket or list,
    or the whole comment when nothing in it is used (the whole line when the comment stands alone); for a
    region, from both its NOLINTBEGIN and its NOLINTEND (both lines when nothing in them is used). Other
    tools' checks in a NOLINT list stay. An unpaired NOLINTBEGIN/NOLINTEND, a misplaced file-level comment
    and unused `per-file-ignores` entries are edited by hand (add the missing NOLINTEND, or remove the marker).
    """

    code = "TRT002"
    reads = frozenset()
    name = "unused-suppression"
    family = "core"
    severity = Severity.WARNING
    fixable = True
    after_filter = True  # the engine runs it after the filter, with index.suppression_use set

    VALID = [
        {
            # each suppression hides a finding: a TRT101 on its own line, a TRT101 on the line below
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": onnxscript_py("FooPlugn").replace(
                    "(x, alpha=1.0)", "(x, alpha=1.0)  # trtlint: ignore[plugin-name-mismatch]"
                ),
                "py/other.py": onnxscript_py("FooPlugim").replace(
                    "    return", "    # trtlint: ignore[TRT101]\n    return"
                ),
            }
        },
        {
            # a suppression of a rule that is not selected still counts when it hides that rule's finding
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": onnxscript_py("FooPlugn").replace("(x, alpha=1.0)", "(x, alpha=1.0)  # trtlint: ignore"),
            },
            "config": {"ignore": ["TRT101"]},
        },
        {
            # clang-tidy's markers, each hiding a TRT301: a region, the next line, its own line (a glob); a bare
            # `NOLINT` is clang-tidy's as well (never called unused) and one naming only other tools' checks is
            # no trtlint suppression. A file-level `ignore-file` hides the other file's TRT301 ten lines away
            "files": {
                "plugins/foo.cpp": _alloc(
                    "    // NOLINTBEGIN(trtlint-TRT301)\n", _MALLOC, "    // NOLINTEND(trtlint-TRT301)\n",
                    "    // NOLINTNEXTLINE(trtlint-enqueue-allocation, bugprone-unused-return-value)\n", _MALLOC,
                    _MALLOC.rstrip("\n") + "  // NOLINT(trtlint-*)\n",
                    "    int n = 0;  // NOLINT\n",
                    "    // NOLINTBEGIN(bugprone-*)\n    // NOLINTEND(bugprone-*)\n",
                ),
                "plugins/bar.cpp": "// trtlint: ignore-file[TRT301] -- scratch buffer, tracked in JIRA-7\n"
                + _alloc(_MALLOC, name="BarPlugin"),
            }
        },
        {
            # ruff's file-level forms: `trtlint: noqa: CODES` and `trtlint: noqa-file CODES`, anywhere on a comment
            # line of their own, hide the TRT101 on line 8 of their files
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": "# trtlint: noqa: TRT101\n" + onnxscript_py("FooPlugn"),
                "py/other.py": onnxscript_py("FooPlugim") + "# trtlint: noqa-file plugin-name-mismatch\n",
            }
        },
    ]
    INVALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": onnxscript_py("FooPlugin").replace(
                    "(x, alpha=1.0)", "(x, alpha=1.0)  # trtlint: ignore[TRT101, TRT103]"
                ),
                "py/stale.py": "# trtlint: ignore\nx = 1\n",
            },
            "expect": [
                ("py/translate.py", 7, "unused suppression: no TRT101 (plugin-name-mismatch), TRT103 (plugin-attribute-mismatch) finding on this line to hide"),
                ("py/stale.py", 1, "unused suppression: this `trtlint: ignore` hides no finding"),
            ],
            # the safe fix: a comment that hides nothing goes (with its line when it stands alone)
            "fixed": {"py/translate.py": onnxscript_py("FooPlugin"), "py/stale.py": "x = 1\n"},
        },
        {
            # one of two rules used: only the other is reported
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": onnxscript_py("FooPlugn").replace(
                    "(x, alpha=1.0)", "(x, alpha=1.0)  # trtlint: ignore[TRT101, enqueue-allocation]"
                ),
            },
            "expect": [("py/translate.py", 7, "unused suppression: no enqueue-allocation (TRT301) finding on this line to hide")],
            # the safe fix: the unused rule leaves the bracket, the used one stays
            "fixed": {"py/translate.py": onnxscript_py("FooPlugn").replace("(x, alpha=1.0)", "(x, alpha=1.0)  # trtlint: ignore[TRT101]")},
        },
        {
            # clang-tidy's markers: a region around code that allocates nothing, a NOLINT whose trtlint check is
            # unused (bugprone's stays), a NOLINTBEGIN never closed and a NOLINTEND closing nothing (no fix: was
            # the END forgotten, or the BEGIN left over?)
            "files": {
                "plugins/foo.cpp": _alloc(
                    "    // NOLINTBEGIN(trtlint-TRT301, trtlint-TRT302)\n", _MALLOC,
                    "    // NOLINTEND(trtlint-TRT301, trtlint-TRT302)\n",
                    "    int n = 0;  // NOLINT(bugprone-narrowing, trtlint-TRT301)\n",
                    "    // NOLINTBEGIN(trtlint-enqueue-synchronization)\n",
                ),
                "plugins/bar.cpp": _alloc("    // NOLINTEND(trtlint-TRT302)\n", name="BarPlugin"),
            },
            "expect": [
                ("plugins/foo.cpp", 16, "unused suppression: no TRT302 (enqueue-synchronization) finding in its region (lines 16-18) to hide"),
                ("plugins/foo.cpp", 19, "unused suppression: no TRT301 (enqueue-allocation) finding on this line to hide"),
                ("plugins/foo.cpp", 20, "unmatched suppression: `NOLINTBEGIN(trtlint-enqueue-synchronization)` has no NOLINTEND with the same checks after it, so it hides nothing"),
                ("plugins/bar.cpp", 16, "unmatched suppression: `NOLINTEND(trtlint-TRT302)` closes no NOLINTBEGIN with the same checks"),
            ],
            # the safe fixes: the unused check leaves both ends of the region, the trtlint check leaves the NOLINT
            "fixed": {"plugins/foo.cpp": _alloc(
                "    // NOLINTBEGIN(trtlint-TRT301)\n", _MALLOC, "    // NOLINTEND(trtlint-TRT301)\n",
                "    int n = 0;  // NOLINT(bugprone-narrowing)\n",
                "    // NOLINTBEGIN(trtlint-enqueue-synchronization)\n",
            )},
        },
        {
            # a region hiding nothing goes whole (both its lines); the file-level forms that hide nothing: a
            # `noqa-file` in C++ (nothing allocates in that enqueue), an unused code of a `noqa`, a bare
            # `ignore-file`; and a `noqa` after code, which is not file-level (it covers nothing)
            "files": {
                "plugins/foo.cpp": _alloc("    // NOLINTBEGIN(trtlint-TRT302)\n", "    int n = 0;\n", "    // NOLINTEND(trtlint-TRT302)\n")
                + "// trtlint: noqa-file TRT301\n",
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": "# trtlint: noqa: TRT101, TRT103\n" + onnxscript_py("FooPlugn"),
                "py/stale.py": "x = 1\n# trtlint: ignore-file\n",
                "py/misplaced.py": "x = 1  # trtlint: noqa\n",
            },
            "expect": [
                ("plugins/foo.cpp", 16, "unused suppression: no TRT302 (enqueue-synchronization) finding in its region (lines 16-18) to hide"),
                ("plugins/foo.cpp", 21, "unused suppression: no TRT301 (enqueue-allocation) finding in this file to hide"),
                ("py/translate.py", 1, "unused suppression: no TRT103 (plugin-attribute-mismatch) finding in this file to hide"),
                ("py/stale.py", 2, "unused suppression: this `trtlint: ignore-file` hides no finding"),
                ("py/misplaced.py", 1, "misplaced suppression: `trtlint: noqa` covers a file only on a comment line of its own; after code it hides nothing"),
            ],
            "fixed": {
                "plugins/foo.cpp": _alloc("    int n = 0;\n"),
                "py/translate.py": "# trtlint: noqa: TRT101\n" + onnxscript_py("FooPlugn"),
                "py/stale.py": "x = 1\n",
            },
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        used = index.suppression_use
        for path, sups in sorted(index.suppressions.items()):
            for s in sups:
                yield from self._judge(path, s, used)
        cfg = index.settings
        if cfg is None or not getattr(cfg, "per_file_ignores", None):
            return
        for glob, selectors in cfg.per_file_ignores.items():
            span = index.config_globs.get(glob)
            if span is None:
                continue
            for sel in selectors:
                if not _known(sel):
                    continue  # TRT003
                if ("pfi", glob, sel) not in used:
                    yield self.diag(
                        span,
                        f"unused suppression: per-file-ignores entry '{glob}' = '{sel}' hides no finding",
                        symbol=f"{glob}:{sel}",
                    )

    def _judge(self, path: str, s, used: set) -> Iterable[Diagnostic]:
        span = Span(path, s.line, s.start + 1, s.line, (len(s.text) if s.stop < 0 else s.stop) + 1)
        if s.problem:
            yield self.diag(span, _problem(s), symbol=f"{s.problem}:{s.label}")
            return
        if s.shared:
            return  # a bare NOLINT marker (or one naming `*`) is clang-tidy's as well: not ours to remove
        mine = [u for u in used if u[0] == "inline" and u[1] == path and u[2:4] == s.key]
        if "*" in s.rules and (not s.groups or any("*" in g for g in s.groups)):
            if not mine:
                yield self.diag(span, f"unused suppression: this `{s.label}` hides no finding", symbol="*",
                                fix=_remove_all(path, s))
            return
        unused, kept = [], []
        for raw, group in zip(s.raw, s.groups):
            if not group:
                kept.append(raw)  # unknown: TRT003
            elif any(("inline", path, s.line, s.start, c) in used for c in group):
                kept.append(raw)
            else:
                unused.append((raw, group))
        if not unused:
            return
        names = ", ".join(_name(raw, group) for raw, group in unused)
        yield self.diag(
            span,
            f"unused suppression: no {names} finding {_where(s)} to hide",
            symbol=",".join(c for _, group in unused for c in group),
            fix=_remove_all(path, s) if not kept and not s.foreign else _keep_only(path, s, kept, {r for r, _ in unused}),
        )


def _name(raw: str, group: tuple[str, ...]) -> str:
    if len(group) > 1:
        return f"{raw} (any of {len(group)} rules)"
    r = rule_code(group[0])  # (the code table's: no other rule module imported)
    return f"{r.code} ({r.name})" if raw.upper() == r.code else f"{raw} ({r.code})"


def _where(s) -> str:
    if s.whole_file:
        return "in this file"
    if s.form == "NOLINTBEGIN":
        return f"in its region (lines {s.line}-{s.last})"
    if s.form == "NOLINTNEXTLINE":
        return "on the next line"
    return "on this line" if len(s.covers) == 1 else "on this line or the next"


def _problem(s) -> str:
    if s.problem == "misplaced":
        return (f"misplaced suppression: `{s.label}` covers a file only on a comment line of its own; "
                "after code it hides nothing")
    if s.form == "NOLINTBEGIN":
        return f"unmatched suppression: `{s.label}` has no NOLINTEND with the same checks after it, so it hides nothing"
    return f"unmatched suppression: `{s.label}` closes no NOLINTBEGIN with the same checks"


def _known(selector: str) -> bool:
    return not unknown_selectors([selector])


def _ends(s) -> list:
    """The marker, and a region's NOLINTEND, as (line, text, start, stop, inner)."""
    out = [(s.line, s.text, s.start, s.stop, s.inner)]
    if s.end:
        out.append(s.end)
    return out


def _remove_all(path: str, s) -> "Fix | None":
    from trtlint.base.fixes import SAFE, delete_line, edit_span

    edits = []
    whole = True
    for line, text, start, stop, _ in _ends(s):
        if text[:start].count('"') % 2 and not path.endswith((".py", ".pyi")):
            # the "comment" may sit in a C++ string literal: no blind edit (Python edits are re-parsed anyway)
            return None
        stop = len(text) if stop < 0 else stop
        if text[:start].strip() == "" and text[stop:].strip() == "":
            edits.append(Edit(delete_line(path, line), ""))
            continue
        whole = False
        if text[stop:].strip() == "":
            start = len(text[:start].rstrip())
        elif text[:start].strip() == "":
            stop = len(text) - len(text[stop:].lstrip())
        edits.append(Edit(edit_span(path, line, text, start, stop), ""))
    if s.end:
        return Fix("remove the unused suppression (its NOLINTBEGIN and NOLINTEND" + (" lines)" if whole else ")"),
                   tuple(edits), SAFE)
    return Fix("remove the unused suppression" + (" (its line)" if whole else ""), tuple(edits), SAFE)


def _keep_only(path: str, s, kept: list[str], unused: set[str]) -> Fix:
    from trtlint.base.fixes import SAFE, edit_span

    if s.listed:  # a NOLINT list: other tools' names stay, as written
        content = ", ".join(s.listed_without(unused))
    else:
        content = ", ".join(kept)
    edits = tuple(Edit(edit_span(path, line, text, a, b), content) for line, text, _, _, (a, b) in _ends(s))
    what = "the NOLINTBEGIN and its NOLINTEND" if s.end else "the suppression"
    return Fix(f"remove the unused rules from {what}", edits, SAFE)
