"""The TensorRT interface pack (rules/tensorrt_interfaces.yaml): schema, the `tensorrt-version` setting, and
its facts checked against the real TensorRT headers when they are present."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trtlint.config.settings import ConfigError, Settings, apply_table
from trtlint.frontends.cpp import CREATOR_IFACES, PLUGIN_IFACES
from trtlint.config.packs import load_pack_file, load_packs, version_at_least

TRT_INCLUDE = Path("/work/repos/trt/include")


def test_pack_describes_every_interface_the_frontend_knows():
    packs = load_packs()
    for name in list(PLUGIN_IFACES) + list(CREATOR_IFACES):
        if name == "IPluginCreatorInterface":
            continue  # the common base of creators: no methods of its own
        assert name in packs.trt_interfaces, name
    m = packs.trt_method("IPluginV3OneBuildV2", "getOutputDataTypes")  # through `extends`
    assert m is not None and m.returns == "status" and m.noexcept
    assert packs.trt_method("IPluginV3OneRuntime", "enqueue").temperature == "hot"
    assert packs.trt_method("IPluginV3OneRuntime", "setTactic").temperature == "hot"
    assert packs.trt_method("IPluginV3OneRuntime", "onShapeChange").temperature == "warm"
    assert packs.trt_method("IPluginV2DynamicExt", "configurePlugin").temperature == "warm"
    assert packs.trt_method("IPluginV3OneBuild", "getWorkspaceSize").temperature == "warm"
    assert packs.trt_method("IPluginV3OneBuild", "getOutputShapes").temperature == "cold"


@pytest.mark.parametrize(
    "target,release,expected",
    [("10.x", "10.0", True), ("10.x", "11.0", False), ("10", "8.5", True), ("11.1", "11.0", True),
     ("10.7", "10.8", False), ("10.8", "10.8", True), ("11", "11.0", True), ("8.4", "8.5", False)],
)
def test_version_at_least(target, release, expected):
    assert version_at_least(target, release) is expected


def test_bad_pack_names_the_key(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text(
        "version: 1\ntensorrt:\n  interfaces:\n    IFoo:\n      kind: plugin\n      methods:\n"
        "        - {name: enqueue, pure: true, noexcept: true, temperature: lukewarm}\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match=r"tensorrt\.interfaces\.IFoo\.methods\.0\.temperature"):
        load_pack_file(p)


def test_user_pack_extends_the_interfaces(tmp_path):
    p = tmp_path / "extra.yaml"
    p.write_text(
        "version: 1\ntensorrt:\n  apis:\n    - {name: 'mylib::oldLookup', deprecated: '9.0', replacement: 'mylib::lookup'}\n",
        encoding="utf-8",
    )
    packs = load_packs([p])
    assert [a.name for a in packs.trt_apis][-1] == "mylib::oldLookup"
    assert "IPluginV3" in packs.trt_interfaces


def test_tensorrt_version_setting():
    s = apply_table(Settings(), {"tensorrt-version": "10.x"}, "t.toml")
    assert s.tensorrt_version == "10.x"
    with pytest.raises(ConfigError, match="tensorrt-version"):
        apply_table(Settings(), {"tensorrt-version": "ten"}, "t.toml")
    with pytest.raises(ConfigError, match="tensorrt-version"):
        apply_table(Settings(), {"tensorrt-version": 10}, "t.toml")


@pytest.mark.skipif(not TRT_INCLUDE.is_dir(), reason="real TensorRT headers not present")
def test_pack_matches_the_real_headers():
    """Deprecation markers and methods as the TensorRT 11.1 headers declare them."""
    packs = load_packs()
    text = {h.name: h.read_text(encoding="utf-8") for h in TRT_INCLUDE.glob("*.h")}
    for name, it in packs.trt_interfaces.items():
        if it.removed:
            # gone: at most forward declarations (`class IPlugin;`) remain, no definition
            assert not any(re.search(rf"^class\s+(?:TRT_DEPRECATED\s+)?{name}\b\s*[^;\s]", t, re.M) for t in text.values()), name
            continue
        hdr = text[it.header]
        decl = re.search(rf"^class\s+(TRT_DEPRECATED\s+)?{name}\b[^;]", hdr, re.M)
        alias = re.search(rf"\busing\s+{name}\s*=", hdr)
        assert decl or alias, f"{name} not declared in {it.header}"
        if decl:
            assert bool(decl.group(1)) == bool(it.deprecated), f"{name}: TRT_DEPRECATED vs pack deprecated={it.deprecated}"
            note = re.search(rf"Deprecated in TensorRT ([0-9.]+)\.[^\n]*\n(?://![^\n]*\n)*class\s+TRT_DEPRECATED\s+{name}\b", hdr)
            if it.deprecated and note:
                assert note.group(1) == it.deprecated, name
        for m in it.methods:
            declared = re.search(rf"\b{m.name}\s*\(", hdr) is not None
            if m.removed:
                assert not any(re.search(rf"\b{m.name}\s*\(", t) for t in text.values()), f"{name}::{m.name} still declared"
            else:
                assert declared, f"{name}::{m.name} not in {it.header}"
    for a in packs.trt_apis:
        short = a.name.split("::")[-1]
        present = any(re.search(rf"\b{short}\s*\(", t) for t in text.values())
        assert present == (a.removed is None), a.name


def test_an_installation_without_its_shipped_packs_is_an_error_not_a_quiet_run(tmp_path):
    """trtlint copied without its rule packs (a packaging mistake, or an export that drops the rules_data link)
    ran every pack-driven rule on empty data and reported fewer findings with exit 0 or 1; it is a clear error."""
    import os
    import shutil
    import subprocess
    import sys

    src = Path(__file__).resolve().parent.parent / "trtlint"
    shutil.copytree(src, tmp_path / "pkg" / "trtlint", ignore=lambda _d, names: [
        n for n in names if n in ("rules_data", "__pycache__")])
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "a.py").write_text("import tensorrt as trt\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "pkg"), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    p = subprocess.run([sys.executable, "-m", "trtlint", "check", str(proj), "--root", str(proj), "--no-cache"],
                       cwd=tmp_path, env=env, capture_output=True, text=True)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "shipped rule packs are missing" in p.stderr and "reinstall trtlint" in p.stderr
    assert "Traceback" not in p.stderr


def _names_newer_than(advice: str, when: str, ifaces) -> list[tuple[str, str]]:
    """(interface, since) of the interfaces ``advice`` names that arrived after release ``when``."""
    out = []
    for word in re.findall(r"[A-Za-z_]\w*", advice or ""):
        it = ifaces.get(word)
        if it is not None and it.since and not version_at_least(when, it.since):
            out.append((word, it.since))
    return out


def test_every_replacement_exists_in_the_releases_it_is_advised_for():
    """A deprecation's or removal's advice is given to every target from that release on: when the replacement
    arrived later (IPluginV2 deprecated in 8.5, IPluginV3 added in 10.0), the entry must say what to use before
    it (``replacement_before`` / ``use_before``), and that advice must exist there (issue 31: an 8.6 plugin told
    to use IPluginV3)."""
    from trtlint.config.packs import advice_at

    packs = load_packs()
    ifaces = packs.trt_interfaces
    entries = [(f"interface {n}", it.deprecated or it.removed, it.replacement, dict(it.replacement_before))
               for n, it in ifaces.items()]
    entries += [(f"api {a.name}", a.deprecated or a.removed, a.replacement, dict(a.replacement_before))
                for a in packs.trt_apis]
    entries += [(f"python {n}", e.get("deprecated") or e.get("removed"), e.get("use"), e.get("use_before") or {})
                for n, e in packs.tensorrt_python_api.items()]
    checked = 0
    for what, first, advice, before in entries:
        if not first or not advice:
            continue
        for name, since in _names_newer_than(advice, first, ifaces):
            checked += 1
            assert since in before, f"{what}: advises {name} (from {since}) from {first} on, with no advice before {since}"
            older = advice_at(advice, before, first)
            assert older != advice and not _names_newer_than(older.split("(")[0], first, ifaces), (what, older)
    assert checked >= 5  # IPlugin, IPluginExt, IPluginFactory, IPluginV2, IPluginV2Ext (C++) and the Python two


def test_advice_at_picks_the_targets_own_advice():
    from trtlint.config.packs import advice_at

    before = {"10.0": "IPluginV2DynamicExt", "9.0": "IPluginV2IOExt"}
    assert advice_at("IPluginV3", before, "8.6") == "IPluginV2IOExt"
    assert advice_at("IPluginV3", before, "9.2") == "IPluginV2DynamicExt"
    assert advice_at("IPluginV3", before, "10.0") == "IPluginV3"
    assert advice_at("IPluginV3", {}, "8.6") == "IPluginV3"
