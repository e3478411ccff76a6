"""The shared PCH's key names the stand-in headers' place: a PCH holds the paths of the headers it read, so a unit
parsed by another install of the same release (a pre-commit hook's environment beside the editor's), which
includes its own copies of the stand-ins, must not load it (each declaration would be seen twice)."""

from __future__ import annotations

import shutil

from trtlint.frontends.cpp import pch


def test_the_prelude_digest_differs_between_two_installs_of_the_same_stand_ins(tmp_path, monkeypatch):
    here = pch._prelude_digest.__wrapped__()
    copy = tmp_path / "other_install" / "prelude"
    shutil.copytree(pch.PRELUDE_DIR, copy)
    monkeypatch.setattr(pch, "PRELUDE_DIR", copy)
    there = pch._prelude_digest.__wrapped__()
    assert there != here
    assert pch._prelude_digest.__wrapped__() == there  # (and it is stable for one install)
    (copy / "cuda" / "cuda_runtime_api.h").write_text("// changed\n", encoding="utf-8")
    assert pch._prelude_digest.__wrapped__() != there  # the stand-ins' contents count as before
