"""Fix safety: read-only files, files changed between read and write, and a write that fails half-way leave
every file whole (the old content or the new, never a mix) and no temp file behind."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from trtlint.base.diagnostics import Diagnostic, Edit, Fix, Severity
from trtlint.base.facts import Span
from trtlint.base.fixes import FileResult, FixResult, digest_bytes, plan_fixes, write_fixes

BEFORE = 'register("fooPlugin")\nx = 1\n'


def _diag(rel: str) -> Diagnostic:
    edit = Edit(Span(rel, 1, 11, 1, 20), "FooPlugin", expect="fooPlugin")
    return Diagnostic("TRT101", "plugin-name-mismatch", Severity.ERROR, "m", Span(rel, 1, 11), fix=Fix("rename", (edit,), "safe"))


def _setup(tmp_path: Path) -> tuple[Path, dict]:
    p = tmp_path / "a.py"
    p.write_text(BEFORE)
    return p, {"a.py": digest_bytes(BEFORE.encode())}


def _leftovers(d: Path) -> list[str]:
    return sorted(x.name for x in d.iterdir() if x.name != "a.py")


def test_a_fix_is_written_whole(tmp_path):
    p, digests = _setup(tmp_path)
    res = plan_fixes([_diag("a.py")], tmp_path, digests)
    write_fixes(res, tmp_path)
    assert p.read_text() == 'register("FooPlugin")\nx = 1\n' and res.refused == [] and _leftovers(tmp_path) == []


def test_a_read_only_file_is_refused_and_left_alone(tmp_path):
    p, digests = _setup(tmp_path)
    p.chmod(0o444)
    res = plan_fixes([_diag("a.py")], tmp_path, digests)
    write_fixes(res, tmp_path)
    assert p.read_text() == BEFORE
    assert stat.S_IMODE(p.stat().st_mode) == 0o444
    assert res.refused == ["a.py: read-only; its fixes were not applied"] and res.fixed == []
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("why", ["read-only directory", "temp file name too long"])
def test_a_temp_file_that_cannot_be_created_is_refused_and_leaves_the_file_whole(tmp_path, why):
    """The temp file beside the target cannot be created: a read-only directory (root ignores permission bits,
    so that case only runs as another user), or a name at the file-system limit, which leaves no room for
    the temp file's prefix and suffix (so the refusal is tested as root too)."""
    d = tmp_path / "dir"
    d.mkdir()
    rel = "a.py" if why == "read-only directory" else "a" * (os.pathconf(d, "PC_NAME_MAX") - 3) + ".py"
    p = d / rel
    p.write_text(BEFORE)
    digests = {rel: digest_bytes(BEFORE.encode())}
    if why == "read-only directory":
        if os.geteuid() == 0:
            pytest.skip("root ignores a directory's permission bits (the long-name case tests this refusal as root)")
        d.chmod(0o555)
        strerror = os.strerror(errno.EACCES)
    else:
        strerror = os.strerror(errno.ENAMETOOLONG)
    try:
        res = plan_fixes([_diag(rel)], d, digests)
        assert len(res.files) == 1
        write_fixes(res, d)
    finally:
        d.chmod(0o755)
    assert p.read_text() == BEFORE
    assert res.refused == [f"{rel}: cannot write ({strerror}); its fixes were not applied"]
    assert res.fixed == [] and res.files == []
    assert sorted(x.name for x in d.iterdir()) == [rel]  # no temp file left behind


def test_a_target_that_is_a_directory_is_refused(tmp_path):
    """A path that is (or became, between planning and writing) a directory is refused, never replaced."""
    (tmp_path / "a.py").mkdir()
    res = plan_fixes([_diag("a.py")], tmp_path, {"a.py": digest_bytes(BEFORE.encode())})
    assert res.files == [] and res.refused == [f"a.py: cannot read ({os.strerror(errno.EISDIR)}); its fixes were not applied"]
    (tmp_path / "a.py").rmdir()
    p, digests = _setup(tmp_path)
    res = plan_fixes([_diag("a.py")], tmp_path, digests)
    assert len(res.files) == 1
    p.unlink()
    p.mkdir()
    write_fixes(res, tmp_path)
    assert p.is_dir() and list(p.iterdir()) == []
    assert res.refused == [f"a.py: cannot read ({os.strerror(errno.EISDIR)}); its fixes were not applied"]
    assert res.fixed == [] and res.files == [] and _leftovers(tmp_path) == []


def test_a_file_changed_before_planning_or_before_writing_is_refused(tmp_path):
    p, digests = _setup(tmp_path)
    p.write_text(BEFORE + "# edited\n")  # after the run read it, before the fixes are planned
    res = plan_fixes([_diag("a.py")], tmp_path, digests)
    assert res.files == [] and res.refused == ["a.py: changed since trtlint read it; its fixes were not applied (run trtlint again)"]
    p.write_text(BEFORE)
    res = plan_fixes([_diag("a.py")], tmp_path, digests)
    assert len(res.files) == 1
    p.write_text(BEFORE + "# edited in the editor meanwhile\n")  # between planning and writing
    write_fixes(res, tmp_path)
    assert p.read_text() == BEFORE + "# edited in the editor meanwhile\n"
    assert res.refused == ["a.py: changed since trtlint read it; its fixes were not applied (run trtlint again)"]
    assert res.fixed == [] and _leftovers(tmp_path) == []


def test_a_write_interrupted_half_way_leaves_the_old_file_and_no_temp_file(tmp_path):
    """The new content cannot be encoded (a lone surrogate): the write fails inside the temp file, as an
    interrupt (KeyboardInterrupt, a full disk) would. The original stays, the temp file is removed."""
    p, _ = _setup(tmp_path)
    res = FixResult(files=[FileResult("a.py", BEFORE, "x = 'ok'\n" * 1000 + "\ud800\n")])
    try:
        write_fixes(res, tmp_path)
    except UnicodeEncodeError:
        pass
    assert p.read_text() == BEFORE
    assert _leftovers(tmp_path) == []
