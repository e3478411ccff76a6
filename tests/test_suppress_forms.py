"""Suppressions besides the line comment: file-level comments (`trtlint: ignore-file[...]`, ruff's
`trtlint: noqa: ...`, `trtlint: noqa-file ...`) and clang-tidy's NOLINT markers and regions, through every path
that applies them: the scanner, `trtlint check` (cold and warm cache, --fix), `check -` with --stdin-filename,
and the editor's session (the LSP server's project state) and server.

TRT002's verdicts on each form are the rule's own VALID/INVALID examples (tests/test_rule_examples.py).
"""

from __future__ import annotations

import json

import pytest

from trtlint.checks.examples.contract import creator_cpp, onnxscript_py
from trtlint.checks.examples.hotpath import plugin_cpp
from trtlint.editor.session import Session
from trtlint.adoption.suppress import SUPPRESS_RE, scan_suppressions

from .helpers import check_project, write_project
from .test_cli import trtlint

MALLOC = "    cudaMalloc(&p, 16);\n"


def alloc(*parts: str) -> str:
    """A plugin whose enqueue (from line 15: `void* p`) holds ``parts``; each MALLOC line is a TRT301."""
    return plugin_cpp("    void* p = nullptr;\n" + "".join(parts).rstrip("\n"))


def _found(res) -> list[tuple]:
    return sorted((d.code, d.span.path, d.span.line, d.message) for d in res.diagnostics)


def _json(r) -> list[tuple]:
    assert "Traceback" not in r.stderr, r.stderr
    return sorted((d["code"], d["location"]["path"], d["location"]["line"], d["message"])
                  for d in json.loads(r.stdout)["diagnostics"])


# --- the scanner --------------------------------------------------------------------------------------------


def test_every_form_is_scanned_with_what_it_covers():
    text = "\n".join([
        "// trtlint: ignore-file[TRT301] -- reason",  # 1
        "# trtlint: noqa: TRT101, plugin-attribute-mismatch",  # 2
        "// trtlint: noqa-file TRT301",  # 3
        "// trtlint: noqa",  # 4
        "x = 1  # trtlint: noqa",  # 5: after code: misplaced
        "// NOLINTBEGIN(trtlint-TRT204)",  # 6
        "foo(); // NOLINT(bugprone-x, trtlint-TRT301)",  # 7
        "// NOLINTNEXTLINE",  # 8
        "bar(); /* NOLINT(trtlint-*) */ baz();",  # 9
        "// NOLINTEND(trtlint-TRT204)",  # 10
        "// NOLINTEND",  # 11: closes nothing
        "int NOLINT = 3;",  # 12: not in a comment
        "// NOLINT(bugprone-*)",  # 13: nothing of trtlint's
        "// NOLINTBEGIN(trtlint-TRT3*)",  # 14: never closed
        "y = 2  # trtlint: ignore[TRT301]",  # 15
    ]) + "\n"
    got = [(s.line, s.form, s.rules, s.problem, s.shared, [n for n in range(1, 17) if s.covers_line(n)])
           for s in scan_suppressions(text, nolint=True)]
    every = list(range(1, 17))
    assert got == [
        (1, "ignore-file", ("TRT301",), "", False, every),
        (2, "noqa", ("TRT101", "TRT103"), "", False, every),
        (3, "noqa-file", ("TRT301",), "", False, every),
        (4, "noqa", ("*",), "", False, every),
        (5, "noqa", ("*",), "misplaced", False, []),
        (6, "NOLINTBEGIN", ("TRT204",), "", False, [6, 7, 8, 9, 10]),
        (7, "NOLINT", ("TRT301",), "", False, [7]),
        (8, "NOLINTNEXTLINE", ("*",), "", True, [9]),
        (9, "NOLINT", ("*",), "", False, [9]),
        (11, "NOLINTEND", ("*",), "unmatched", True, []),
        (14, "NOLINTBEGIN", ("TRT301", "TRT302", "TRT303", "TRT304", "TRT305", "TRT306"), "unmatched", False, []),
        (15, "ignore", ("TRT301",), "", False, [15]),
    ]
    # outside C, C++ and CUDA the markers are no suppressions (`# NOLINT` in Python is someone else's)
    assert [s.line for s in scan_suppressions(text) if s.form.startswith("NOLINT")] == []


def test_the_line_form_is_not_the_start_of_ignore_file():
    assert SUPPRESS_RE.search("// trtlint: ignore-file[TRT301]") is None
    (s,) = scan_suppressions("// trtlint: ignore-file[TRT301]\nint x;\n")
    assert (s.form, s.covers_line(2), s.covers_line(900)) == ("ignore-file", True, True)


def test_a_region_closes_on_the_end_with_the_same_list_nested_regions_too():
    text = "// NOLINTBEGIN(trtlint-TRT301)\n// NOLINTBEGIN(trtlint-TRT302)\nx\n// NOLINTEND(trtlint-TRT301)\ny\n// NOLINTEND( trtlint-TRT302 )\n"
    got = [(s.line, s.last, s.rules, s.problem) for s in scan_suppressions(text, nolint=True)]
    assert got == [(1, 4, ("TRT301",), ""), (2, 6, ("TRT302",), "")]


# --- trtlint check ----------------------------------------------------------------------------------------


def _project(tmp_path, foo: str):
    write_project(tmp_path, {".git/HEAD": "", "plugins/foo.cpp": foo})
    return tmp_path


def test_check_hides_what_the_markers_cover_cold_and_warm(tmp_path):
    # no `trtlint:` anywhere in the file: the scan (cached by content digest) must count the NOLINT markers
    proj = _project(tmp_path, alloc(
        "    // NOLINTBEGIN(trtlint-TRT301)\n", MALLOC, "    // NOLINTEND(trtlint-TRT301)\n",  # 16-18
        "    // NOLINTNEXTLINE(trtlint-enqueue-allocation)\n", MALLOC,  # 19-20
        MALLOC.rstrip("\n") + "  // NOLINT(bugprone-unused-return-value)\n",  # 21: not ours: reported
        "    // NOLINTBEGIN(trtlint-TRT302)\n",  # 22: never closed
    ))
    expect = [
        ("TRT002", "plugins/foo.cpp", 22, "unmatched suppression: `NOLINTBEGIN(trtlint-TRT302)` has no NOLINTEND with the same checks after it, so it hides nothing"),
        ("TRT301", "plugins/foo.cpp", 21, "cudaMalloc (device allocation) allocates on the hot path of FooPlugin::enqueue: FooPlugin::enqueue -> cudaMalloc"),
    ]
    for _ in ("cold", "warm"):
        r = trtlint("check", str(proj), "--select", "TRT002,TRT301,TRT302", "--format", "json")
        assert r.returncode == 1 and _json(r) == expect


def test_check_fix_removes_an_unused_region_and_keeps_other_tools_checks(tmp_path):
    proj = _project(tmp_path, alloc(
        "    // NOLINTBEGIN(trtlint-TRT302)\n", MALLOC, "    // NOLINTEND(trtlint-TRT302)\n",
        "    int n = 0;  /* NOLINT(trtlint-TRT301, bugprone-narrowing) */\n",
    ) + "// trtlint: noqa-file TRT301\n")
    r = trtlint("check", str(proj), "--select", "TRT002,TRT301,TRT302", "--format", "json", "--fix")
    assert "Fixed 2 findings" in r.stderr, r.stderr
    # the file-level TRT301 hides the allocation, so it stays; the region and the NOLINT's trtlint check go
    assert (proj / "plugins/foo.cpp").read_text() == alloc(
        MALLOC, "    int n = 0;  /* NOLINT(bugprone-narrowing) */\n") + "// trtlint: noqa-file TRT301\n"
    assert _json(r) == []


@pytest.mark.parametrize("translate,hidden", [
    (onnxscript_py("FooPlugn") + "# trtlint: noqa: TRT101\n", True),
    ("# trtlint: ignore-file[plugin-name-mismatch]\n" + onnxscript_py("FooPlugn"), True),
    ("# trtlint: noqa\n" + onnxscript_py("FooPlugn"), True),
    ("# trtlint: noqa-file TRT101, TRT103\n" + onnxscript_py("FooPlugn"), True),
    (onnxscript_py("FooPlugn").replace("alpha=1.0)", "alpha=1.0)  # NOLINT(trtlint-TRT101)"), False),
    (onnxscript_py("FooPlugn").replace("alpha=1.0)", "alpha=1.0)  # trtlint: noqa-file"), False),  # misplaced
], ids=["noqa", "ignore-file", "bare-noqa", "noqa-file", "nolint-in-python", "misplaced-noqa-file"])
def test_file_level_forms_in_python_and_nolint_is_not_python(tmp_path, translate, hidden):
    write_project(tmp_path, {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"), "py/t.py": translate})
    res = check_project(tmp_path, select=["TRT101"])
    assert [(d.code, d.span.path) for d in res.diagnostics] == ([] if hidden else [("TRT101", "py/t.py")])


# --- check - (stdin) and the editor's session ---------------------------------------------------------------


def test_stdin_text_gets_the_markers_it_holds(tmp_path):
    proj = _project(tmp_path, alloc(MALLOC))
    region = alloc("    // NOLINTBEGIN(trtlint-TRT301)\n", MALLOC, "    // NOLINTEND(trtlint-TRT301)\n")
    r = trtlint("check", "-", "--stdin-filename", str(proj / "plugins/foo.cpp"), "--no-cache", "--format", "json",
                "--select", "TRT002,TRT301", input=region)
    assert r.returncode == 0 and _json(r) == []
    r = trtlint("check", "-", "--stdin-filename", str(proj / "plugins/foo.cpp"), "--no-cache", "--format", "json",
                "--select", "TRT002,TRT301", input=region.replace("NOLINTEND(trtlint-TRT301)", "NOLINTEND(trtlint-TRT302)"))
    assert [(c, n) for c, _, n, _ in _json(r)] == [("TRT002", 16), ("TRT002", 18), ("TRT301", 17)]
    r = trtlint("check", "-", "--stdin-filename", str(proj / "plugins/foo.cpp"), "--no-cache", "--format", "json",
                "--select", "TRT002,TRT301", input="// trtlint: noqa-file TRT302\n" + alloc(MALLOC))
    assert [(c, n, m) for c, _, n, m in _json(r) if c == "TRT002"] == [
        ("TRT002", 1, "unused suppression: no TRT302 (enqueue-synchronization) finding in this file to hide")]


def test_session_follows_markers_in_an_unsaved_buffer(tmp_path):
    proj = _project(tmp_path, alloc(MALLOC))
    s = Session(proj, jobs=1, use_cache=False, overrides={"select": ["TRT002", "TRT301"]})
    try:
        assert [(d.code, d.span.line) for d in s.check()] == [("TRT301", 16)]
        s.set_buffer("plugins/foo.cpp", alloc("    // NOLINTBEGIN\n", MALLOC, "    // NOLINTEND\n"))
        assert s.check() == []  # a bare region covers every rule, and is never called unused
        s.set_buffer("plugins/foo.cpp", "// trtlint: ignore-file[TRT301]\n" + alloc(MALLOC))
        assert s.check() == []
        s.set_buffer("plugins/foo.cpp", alloc("    // NOLINTBEGIN\n", MALLOC))
        assert [(d.code, d.span.line, d.message) for d in s.check()] == [
            ("TRT002", 16, "unmatched suppression: `NOLINTBEGIN` has no NOLINTEND with the same checks after it, so it hides nothing"),
            ("TRT301", 17, "cudaMalloc (device allocation) allocates on the hot path of FooPlugin::enqueue: FooPlugin::enqueue -> cudaMalloc"),
        ]
    finally:
        s.close()


# --- the language server ------------------------------------------------------------------------------------

from lsprotocol import types as T  # noqa: E402

from .test_lsp import client, found, uri, wait_for  # noqa: E402,F401  (client: the server fixture)

KERNELS = "cpp/kernels/fooKernels.cu"  # line 17 of the fixture: a cudaMalloc TRT301 reports


@pytest.mark.asyncio(loop_scope="function")
async def test_server_applies_a_region_in_an_open_buffer_and_reports_it_unmatched(client):
    await wait_for(client, lambda: ("TRT301", 17) in found(client, KERNELS), "the initial TRT301")
    lines = (client.project / KERNELS).read_text(encoding="utf-8").split("\n")
    region = "\n".join(lines[:16] + ["    // NOLINTBEGIN(trtlint-TRT301)", lines[16], "    // NOLINTEND(trtlint-TRT301)"] + lines[17:])
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri=uri(client, KERNELS), language_id="cuda", version=1, text=region)))
    await wait_for(client, lambda: not {c for c, _ in found(client, KERNELS)} & {"TRT301", "TRT002"}, "the TRT301 hidden")
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(uri=uri(client, KERNELS), version=2),
        [T.TextDocumentContentChangeWholeDocument(text=region.replace("    // NOLINTEND(trtlint-TRT301)\n", ""))]))
    await wait_for(client, lambda: {("TRT002", 17), ("TRT301", 18)} <= found(client, KERNELS), "the unmatched NOLINTBEGIN")
    (d,) = [d for d in client.diagnostics[uri(client, KERNELS)] if d.code == "TRT002"]
    assert d.message == ("unmatched suppression: `NOLINTBEGIN(trtlint-TRT301)` has no NOLINTEND with the same checks "
                         "after it, so it hides nothing")


def test_a_line_comment_after_a_file_comment_on_its_line_counts_too():
    # what `--add-suppressions` or the editor's quick fix append to a line that holds a file-level comment
    text = "// trtlint: ignore-file[TRT301]  // trtlint: ignore[TRT003] -- legacy\nint x;\n"
    got = [(s.form, s.rules, [n for n in (1, 2, 3) if s.covers_line(n)]) for s in scan_suppressions(text, nolint=True)]
    assert got == [("ignore-file", ("TRT301",), [1, 2, 3]), ("ignore", ("TRT003",), [1])]


def test_the_scan_cache_reads_again_only_files_with_markers_that_can_be_trtlints(tmp_path):
    from trtlint.frontends import SourceFile
    from trtlint.pipeline.check import scan_all_suppressions
    from trtlint.store.scancache import TextScans, has_our_nolint

    assert [has_our_nolint(t) for t in (b"x; // NOLINT", b"// NOLINTBEGIN\n", b"// NOLINT(*)", b"// NOLINT(bugprone-a, trtlint-TRT301)",
                                        b"x; // NOLINT(bugprone-x)", b"// NOLINTEND(google-x)", b"int NOLINTX;")] == [
        True, True, True, True, False, False, False]
    texts = {"ours.cpp": "int a;  // NOLINT(trtlint-TRT301)\n", "theirs.cpp": "int b;  // NOLINT(bugprone-x)\n", "none.cpp": "int c;\n"}
    write_project(tmp_path, texts)
    files = [SourceFile(path=tmp_path / rel, rel=rel, kind="cpp", digest=rel) for rel in texts]
    cold = TextScans(tmp_path / "cache")
    assert list(scan_all_suppressions(files, cold)) == ["ours.cpp"]
    cold.save(prune=True)
    warm = TextScans(tmp_path / "cache")
    assert list(scan_all_suppressions(files, warm)) == ["ours.cpp"] and warm.reads == 1  # only ours.cpp, to parse it
