"""Relative imports in the Python frontend are resolved against the importing file's package: for a package's own
``__init__.py`` one dot is the package itself; for any other module, the module's package."""

import ast

import pytest

from trtlint.frontends.python.members import reexports
from trtlint.frontends.python.names import relative_base
from trtlint.frontends.python.receivers import receivers

_USE = (
    "from {dots}builder import Builder\n"
    "def build(network, config):\n"
    "    b = Builder()\n"
    "    return b.build_engine(network, config)\n"
)


@pytest.mark.parametrize(
    "rel, dots, qualified",
    [
        ("pkg/__init__.py", ".", "pkg.builder.Builder"),
        ("pkg/sub/__init__.py", ".", "pkg.sub.builder.Builder"),
        ("pkg/sub/__init__.py", "..", "pkg.builder.Builder"),
        ("pkg/run.py", ".", "pkg.builder.Builder"),
        ("pkg/sub/run.py", "..", "pkg.builder.Builder"),
    ],
)
def test_receiver_through_relative_import(rel, dots, qualified):
    text = _USE.format(dots=dots)
    assert receivers(ast.parse(text), text, rel, {"build_engine"}) == {(4, 26): qualified}


def test_relative_base():
    assert relative_base("pkg/__init__.py", 1) == ["pkg"]
    assert relative_base("pkg/__init__.py", 2) == []
    assert relative_base("pkg/mod.py", 1) == ["pkg"]
    assert relative_base("a/b/c/mod.py", 2) == ["a", "b"]
    assert relative_base("mod.py", 1) == []


def test_reexport_of_a_subpackage_module():
    text = "from .builder import Builder\nfrom ..top import Top\n"
    got = {(r.module, r.name, r.target) for r in reexports(text, "pkg/sub/__init__.py")["py_reexports"]}
    assert got == {("pkg.sub", "Builder", "pkg.sub.builder.Builder"), ("pkg.sub", "Top", "pkg.top.Top")}
