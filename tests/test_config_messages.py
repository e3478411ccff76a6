"""What a broken config says: the file, the line, and what to write instead.

An unknown setting names the closest one (`extend-selct` -> `extend-select`, a table's key written alone or
misspelt inside its table too), and pyproject.toml's `[tool.trtlint]` header written in trtlint.toml says to
drop it, rather than calling `tool` an unknown key.
"""

from __future__ import annotations

import pytest

from trtlint.config.settings import ConfigError, load_settings

from .test_cli import trtlint


def _error(tmp_path, name: str, text: str) -> str:
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_settings(tmp_path)
    return str(e.value)


@pytest.mark.parametrize(
    "name,text,line,message",
    [
        ("trtlint.toml", 'select = ["ALL"]\n\nextend-selct = ["TRT604"]\n', 3,
         "unknown setting 'extend-selct'; did you mean 'extend-select'?"),
        ("trtlint.toml", 'fail_levl = "error"\n', 1, "unknown setting 'fail_levl'; did you mean 'fail-level'?"),
        ("trtlint.toml", 'extnd = "../pyproject.toml"\n', 1, "unknown setting 'extnd'; did you mean 'extend'?"),
        # a table's key written at the top level (TOML reads `test-lists.selector = ...` as that key)
        ("trtlint.toml", 'selector = "nodeid"\n', 1, "unknown setting 'selector'; did you mean 'test-lists.selector'?"),
        # a key inside a table: the line is the key's, not the table header's
        ("trtlint.toml", '[test-lists]\nfiles = ["t.yml"]\nselectr = "nodeid"\n', 3,
         "unknown setting 'test-lists.selectr'; did you mean 'test-lists.selector'?"),
        ("trtlint.toml", 'test-lists.files = ["t.yml"]\ntest-lists.test-file = ["tests/*.py"]\n', 2,
         "unknown setting 'test-lists.test-file'; did you mean 'test-lists.test-files'?"),
        ("trtlint.toml", '[direct-route]\nversion = "1"\nreserved-kwarg = ["output_count"]\n', 3,
         "unknown setting 'direct-route.reserved-kwarg'; did you mean 'direct-route.reserved-kwargs'?"),
        # pyproject.toml: the line in trtlint's own table, not ruff's of the same key
        ("pyproject.toml", '[tool.ruff]\nselekt = ["E"]\n\n[tool.trtlint]\nprofile = "generic"\nselekt = ["ALL"]\n', 6,
         "unknown setting 'selekt'; did you mean 'select'?"),
        # ruff groups its settings in [tool.ruff.lint]; trtlint does not
        ("pyproject.toml", '[tool.ruff.lint]\nselect = ["E"]\n[tool.trtlint.lint]\nselect = ["ALL"]\nignore = ["TRT302"]\n', 3,
         "unknown setting 'lint': trtlint has no '[tool.trtlint.lint]' table; write 'select', 'ignore' directly under "
         "[tool.trtlint]"),
        ("trtlint.toml", '[lint]\nselect = ["ALL"]\n', 1,
         "unknown setting 'lint': trtlint has no '[lint]' table; write 'select' at the top level"),
    ],
)
def test_unknown_setting_names_the_closest(tmp_path, name, text, line, message):
    assert _error(tmp_path, name, text) == f"{tmp_path / name}:{line}: {message}"


def test_unknown_setting_without_a_close_one_lists_the_settings(tmp_path):
    msg = _error(tmp_path, "trtlint.toml", 'profile = "generic"\nfrobnicate = 1\n')
    assert msg.startswith(f"{tmp_path / 'trtlint.toml'}:2: unknown setting 'frobnicate' (known: baseline, ")
    assert "extend, extend-exclude, extend-select" in msg and "did you mean" not in msg
    msg = _error(tmp_path, "trtlint.toml", '[test-lists]\nfiles = ["t.yml"]\nzzz = 1\n')
    assert msg == f"{tmp_path / 'trtlint.toml'}:3: unknown setting 'test-lists.zzz' (known: files, selector, test-files)"


@pytest.mark.parametrize("name", ["trtlint.toml", ".trtlint.toml"])
def test_pyproject_header_in_trtlint_toml_says_drop_it(tmp_path, name):
    msg = _error(tmp_path, name, '[tool.trtlint]\nselect = ["ALL"]\n')
    assert msg == (f"{tmp_path / name}:1: '[tool.trtlint]' is pyproject.toml's table header; in {name} write the "
                   "settings at the top level (drop the header)")


def test_pyproject_sub_table_headers_in_trtlint_toml(tmp_path):
    cfg = tmp_path / "trtlint.toml"
    msg = _error(tmp_path, "trtlint.toml", '# ours\n[tool.trtlint]\nselect = ["ALL"]\n\n[tool.trtlint.severity]\nTRT301 = "info"\n')
    assert msg == (f"{cfg}:2: '[tool.trtlint]' is pyproject.toml's table header; in trtlint.toml write the settings "
                   "at the top level (drop the header), and '[tool.trtlint.severity]' as '[severity]'")
    msg = _error(tmp_path, "trtlint.toml", '[tool.trtlint.per-file-ignores]\n"tests/**" = ["TRT107"]\n')
    assert msg == (f"{cfg}:1: '[tool.trtlint.per-file-ignores]' is pyproject.toml's table header; in trtlint.toml "
                   "write '[tool.trtlint.per-file-ignores]' as '[per-file-ignores]'")
    msg = _error(tmp_path, "trtlint.toml", '\ntool.trtlint.select = ["ALL"]\n')
    assert msg == (f"{cfg}:2: 'tool.trtlint' is pyproject.toml's table; in trtlint.toml write the settings at the "
                   "top level (drop the 'tool.trtlint.' prefix)")


def test_pyproject_header_in_an_extended_file(tmp_path):
    # the file `extend` names is read as what it is: a base.toml with the header gets the hint too
    (tmp_path / "base.toml").write_text('[tool.trtlint]\nignore = ["TRT302"]\n', encoding="utf-8")
    msg = _error(tmp_path, "trtlint.toml", 'extend = "base.toml"\n')
    assert msg == (f"{tmp_path / 'base.toml'}:1: '[tool.trtlint]' is pyproject.toml's table header; in base.toml "
                   "write the settings at the top level (drop the header)")


def test_the_right_header_in_each_file_loads(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.trtlint]\nignore = ["TRT302"]\n[tool.trtlint.direct-route]\n'
                                             'call-names = ["operation"]\n', encoding="utf-8")
    s = load_settings(tmp_path)
    assert s.ignore == ["TRT302"] and s.direct_route == {"call_names": ["operation"]}  # read as the profile's key
    (tmp_path / "trtlint.toml").write_text('ignore = ["TRT302"]\n[severity]\nTRT301 = "info"\n', encoding="utf-8")
    s = load_settings(tmp_path)
    assert s.config_file == tmp_path / "trtlint.toml" and s.severity == {"TRT301": "info"}


def test_cli_exit_2_with_the_hint_and_no_traceback(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "trtlint.toml").write_text('[tool.trtlint]\nextend-selct = ["TRT604"]\n', encoding="utf-8")
    r = trtlint("check", str(tmp_path), "--no-cache")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{tmp_path / 'trtlint.toml'}:1: '[tool.trtlint]' is pyproject.toml's table header" in r.stderr
    (tmp_path / "trtlint.toml").write_text('extend-selct = ["TRT604"]\n', encoding="utf-8")
    r = trtlint("check", str(tmp_path), "--no-cache")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().endswith(
        f"{tmp_path / 'trtlint.toml'}:1: unknown setting 'extend-selct'; did you mean 'extend-select'?"), r.stderr
