"""Settings and their sources.

Sources, lowest to highest priority: built-in defaults, the profile (``rules/profiles.yaml``; chosen in config
or detected from the tree), the config file (``trtlint.toml`` / ``.trtlint.toml`` top level, or
``[tool.trtlint]`` in ``pyproject.toml``; the closest one from the checked path upwards, stopping at the
repository root), then command-line options.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from trtlint.base.errors import ConfigError
from trtlint.base.safeio import read_text


@dataclass
class Settings:
    """The effective configuration of a run: defaults, the config file, then the command line (``origins`` says
    where each key came from)."""

    root: Path = Path(".")
    config_file: Optional[Path] = None
    profile: str = "auto"  # "auto" | a profile name
    select: list[str] = field(default_factory=lambda: ["DEFAULT"])  # the default rule set; "ALL" adds the opt-in rules
    ignore: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    severity: dict[str, str] = field(default_factory=dict)  # rule -> severity override
    include: list[str] = field(default_factory=list)  # .gitignore-style patterns; empty = everything
    exclude: list[str] = field(default_factory=list)
    extend_exclude: list[str] = field(default_factory=list)
    respect_gitignore: bool = True
    rule_packs: list[str] = field(default_factory=list)  # extra YAML packs
    include_dirs: list[str] = field(default_factory=list)  # C++ include dirs (relative to root or absolute)
    defines: list[str] = field(default_factory=list)  # C++ preprocessor definitions, "NAME" or "NAME=VALUE"
    compile_commands: Optional[str] = None
    max_call_depth: int = 8
    fail_level: str = "warning"  # findings at or above this severity make exit 1
    max_file_size: int = 4 * 1024 * 1024
    # profile-provided settings (may be overridden in config)
    plugin_dirs: Optional[list[str]] = None
    onnx_plugin_domains: Optional[list[str]] = None
    builtin_domains: Optional[list[str]] = None
    model_files: Optional[list[str]] = None
    direct_route: Optional[dict[str, Any]] = None
    test_lists: Optional[dict[str, Any]] = None
    # the TensorRT release the code targets ("10.x", "10.8", "11"); None: the rules/ pack's default
    tensorrt_version: Optional[str] = None
    # judge code whose file or folder name marks it deprecated (``DeprecatedLayers/``, ``foo-deprecated.py``)
    # against the release too (TRT207, TRT610); false: the summary names it instead
    judge_deprecated_code: bool = False
    # report a deprecation (TRT207) whose replacement an older release the build also pins lacks (the project
    # supports that release, so the replacement cannot be adopted yet); false: the summary counts them instead
    report_unadoptable_deprecations: bool = False
    # judge the headers no C++/CUDA unit of the tree includes (with the build known: code no program compiles);
    # false: their findings are set aside and the summary names the headers (pipeline.unincluded)
    judge_unincluded_headers: bool = False
    # judge the programs whose Makefile make cannot run (an ``include`` of a file the tree does not have);
    # false: their findings are set aside and the summary names the Makefiles (pipeline.unincluded)
    judge_unrunnable_builds: bool = False
    # judge the plugin classes only code for older TensorRT releases than the program's creates; false: their
    # findings are set aside and the summary names the classes (pipeline.oldrelease)
    judge_old_release_plugins: bool = False
    # judge the code only a build option the project marks experimental or deprecated builds (off by default, its
    # name or description, or a README line naming a setup.py flag, says so); false: its findings are set aside and
    # the summary names the option (pipeline.buildmodel.gates)
    judge_optional_builds: bool = False
    # where each value came from, for `trtlint config --show`
    origins: dict[str, str] = field(default_factory=dict)
    baseline: Optional[str] = None  # a baseline file (relative to the config file that names it): known findings
    config_chain: list = field(default_factory=list)  # the config files read, closest first (``extend`` follows)
    file_timeout: float = 60.0  # seconds one file may take to extract (0: no limit); then TRT001 "timed out"
    worker_memory: float = 2048.0  # MiB an extraction worker may hold while parsing one file (0: no limit)


_KEYS = {
    f.name.replace("_", "-"): f.name
    for f in fields(Settings)
    if f.name not in ("root", "config_file", "origins", "config_chain")
}
_LIST_KEYS = {
    "select",
    "ignore",
    "extend_select",
    "include",
    "exclude",
    "extend_exclude",
    "rule_packs",
    "include_dirs",
    "defines",
    "plugin_dirs",
    "onnx_plugin_domains",
    "builtin_domains",
    "model_files",
}


def split_csv(values: Optional[list[str]]) -> Optional[list[str]]:
    """Command-line list options (``--select TRT1,TRT2 --select TRT3``): each value split at commas, blanks
    dropped; None stays None (the option was not given)."""
    if values is None:
        return None
    out: list[str] = []
    for v in values:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


CONFIG_NAMES = ("trtlint.toml", ".trtlint.toml")


def config_in(d: Path) -> Optional[Path]:
    """The config file directly in directory ``d`` (``trtlint.toml``, ``.trtlint.toml``, or a
    ``pyproject.toml`` with a ``[tool.trtlint]`` table), or None. A ``pyproject.toml`` that names
    ``tool.trtlint`` but is not valid TOML counts (loading it then reports the error)."""
    for name in CONFIG_NAMES:
        if (d / name).is_file():
            return d / name
    pp = d / "pyproject.toml"
    try:
        text = read_text(pp, limit=CONFIG_LIMIT) if pp.is_file() else ""
    except OSError:
        return None
    if "tool.trtlint" not in text and "[tool]" not in text:
        return None
    try:
        if _long_key(text) is not None:
            raise tomllib.TOMLDecodeError("a dotted key too long")
        tool = tomllib.loads(text).get("tool", {})
    except (tomllib.TOMLDecodeError, RecursionError):
        return pp if "tool.trtlint" in text else None
    return pp if isinstance(tool, dict) and "trtlint" in tool else None


def find_config(start: Path) -> Optional[tuple[Path, dict]]:
    """The closest config from ``start`` upwards, not crossing a repository root (a dir with ``.git``)."""
    d = start if start.is_dir() else start.parent
    d = d.resolve()
    while True:
        for name in ("trtlint.toml", ".trtlint.toml"):
            p = d / name
            if p.is_file():
                return p, _load_toml(p)
        pp = d / "pyproject.toml"
        if pp.is_file():
            data = _load_toml(pp)
            tool = data.get("tool", {})
            if isinstance(tool, dict) and "trtlint" in tool:
                section = tool["trtlint"]
                if not isinstance(section, dict):
                    raise ConfigError(f"{pp}: [tool.trtlint] must be a table")
                return pp, section
        if (d / ".git").exists() or d.parent == d:
            return None
        d = d.parent


# a config file is small; one larger is refused before it is read (on a pull request it is attacker-controlled)
CONFIG_LIMIT = 1024 * 1024
# the parts of one dotted key (``a.b.c = 1``): tomllib's time grows with the square of their number (16,000
# parts: 8 s), real keys have a handful
_MAX_KEY_PARTS = 64
# files an ``extend`` chain may name after the first
MAX_EXTEND = 16
_PART = r"""[A-Za-z0-9_+-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*'"""
_TOML_TOKEN = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""' r"|'''.*?'''" r"|#[^\n]*"
    rf"|(?P<run>(?:{_PART})(?:[ \t]*\.[ \t]*(?:{_PART}))*)" r"""|[^"'#A-Za-z0-9_+-]+|.""",
    re.S,
)


def _long_key(text: str) -> Optional[tuple[int, int]]:
    """``(line, parts)`` of the first dotted key (or dotted run outside strings and comments) of more than
    :data:`_MAX_KEY_PARTS` parts, or None; a linear scan."""
    for m in _TOML_TOKEN.finditer(text):
        run = m.group("run")
        if run and run.count(".") >= _MAX_KEY_PARTS:
            parts = len(re.findall(_PART, run))
            if parts > _MAX_KEY_PARTS:
                return 1 + text.count("\n", 0, m.start()), parts
    return None


def _load_toml(p: Path) -> dict:
    from trtlint.base.safeio import read_bytes

    try:
        raw = read_bytes(p, limit=CONFIG_LIMIT)  # a regular file only, and at most CONFIG_LIMIT bytes
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = 1 + e.object[: e.start].count(b"\n")
        raise ConfigError(f"{p}:{line}: invalid TOML: not valid UTF-8 (byte at offset {e.start})") from None
    except OSError as e:
        raise ConfigError(f"{p}: cannot read: {e.strerror or e}") from None
    long_key = _long_key(text)
    if long_key is not None:
        raise ConfigError(f"{p}:{long_key[0]}: a dotted key of {long_key[1]} parts (at most {_MAX_KEY_PARTS}); not read")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: invalid TOML: {e}") from None
    except RecursionError:
        raise ConfigError(f"{p}: invalid TOML: arrays or tables nested too deeply") from None


def key_line(origin: str, key: str) -> Optional[int]:
    """The line of ``origin`` (a config file) where ``key`` is written (``key =`` or a ``[...key]`` table)."""
    try:
        lines = read_text(origin, limit=CONFIG_LIMIT).splitlines()
    except (OSError, ValueError):
        return None
    pat = re.compile(r"^\s*(?:\[\s*(?:[\w.-]+\.)?)?[\"']?" + re.escape(key) + r"[\"']?\s*(?:=|\]|\.)")
    hits = [i for i, text in enumerate(lines, 1) if pat.match(text)]
    hit_set = set(hits)
    if Path(origin).name == "pyproject.toml":  # prefer a line in trtlint's own tables ([tool.ruff.lint] is not ours)
        ours, mine = False, []
        for i, text in enumerate(lines, 1):
            h = _TABLE.match(text)
            if h:
                name = re.sub(r"[\s\"']", "", h.group(1))
                ours = name == "tool.trtlint" or name.startswith("tool.trtlint.")
            if ours and i in hit_set:
                mine.append(i)
        hits = mine or hits
    return hits[0] if hits else None


_TABLE = re.compile(r"^\s*\[\[?([^\]]*)\]")


def apply_table(s: Settings, table: dict, origin: str) -> Settings:
    if isinstance(table.get("tool"), dict) and "trtlint" in table["tool"] and Path(origin).name != "pyproject.toml":
        raise _header_in_own_file(origin)
    for key, value in table.items():
        if key == "extend":
            continue  # followed by load_settings (see _extend_chain)
        try:
            _apply_key(s, key, value, origin)
        except ConfigError as e:  # name the line too: "trtlint.toml:12: 'ignore' must be a list of strings"
            line = key_line(origin, key)
            msg = str(e)
            if line is not None and msg.startswith(f"{origin}: "):
                msg = f"{origin}:{line}: {msg[len(origin) + 2:]}"
            raise ConfigError(msg) from None
    return s


def _apply_key(s: Settings, key: str, value: Any, origin: str) -> None:
    attr = _KEYS.get(key) or (_KEYS.get(key.replace("_", "-")))
    if attr is None:
        raise _unknown_key(origin, key, value)
    if attr in _LIST_KEYS:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{origin}: '{key}' must be a list of strings")
    elif attr == "per_file_ignores":
        if not isinstance(value, dict) or not all(
            isinstance(v, (list, str)) for v in value.values()
        ):
            raise ConfigError(f"{origin}: 'per-file-ignores' must be a table of glob = [rules]")
        value = {k: ([v] if isinstance(v, str) else list(v)) for k, v in value.items()}
    elif attr == "severity":
        if not isinstance(value, dict) or not all(v in ("error", "warning", "info") for v in value.values()):
            raise ConfigError(f"{origin}: 'severity' must map rules to error|warning|info")
    elif attr in ("file_timeout", "worker_memory"):
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
            unit = "seconds" if attr == "file_timeout" else "MiB"
            raise ConfigError(f"{origin}: '{key}' must be a non-negative number of {unit}")
        value = float(value)
    elif attr in ("max_call_depth", "max_file_size"):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ConfigError(f"{origin}: '{key}' must be a non-negative integer")
    elif attr in ("respect_gitignore", "judge_deprecated_code", "report_unadoptable_deprecations",
                  "judge_unincluded_headers", "judge_unrunnable_builds", "judge_old_release_plugins",
                  "judge_optional_builds"):
        if not isinstance(value, bool):
            raise ConfigError(f"{origin}: '{key}' must be true or false")
    elif attr == "fail_level":
        if value not in ("error", "warning", "info"):
            raise ConfigError(f"{origin}: 'fail-level' must be error|warning|info")
    elif attr == "direct_route":
        if not isinstance(value, dict):
            raise ConfigError(f"{origin}: 'direct-route' must be a table")
        for k in value:
            if k.replace("_", "-") not in _TABLE_KEYS["direct-route"]:
                raise _unknown_key(origin, k, value[k], table="direct-route")
        value = {k.replace("-", "_"): v for k, v in value.items()}  # read as call_names, reserved_kwargs
    elif attr == "test_lists":
        value = _test_lists(value, origin)
    elif attr == "tensorrt_version":
        if not isinstance(value, str) or not re.fullmatch(r"[0-9]+(\.([0-9]+|x))?(\.([0-9]+|x))?", value.strip()):
            raise ConfigError(f"{origin}: '{key}' must be a TensorRT version such as \"10.x\" or \"10.8\"")
        value = value.strip()
    elif attr in ("profile", "compile_commands", "baseline"):
        if not isinstance(value, str):
            raise ConfigError(f"{origin}: '{key}' must be a string")
        if attr == "baseline" and not Path(value).is_absolute() and Path(origin).is_file():
            value = str(Path(origin).resolve().parent / value)  # relative to the file that names it
    setattr(s, attr, value)
    s.origins[attr] = origin


# the keys of the settings that are tables of their own (their values are checked where the setting is)
_TABLE_KEYS = {
    "test-lists": ("files", "selector", "test-files"),
    "direct-route": ("version", "namespace", "encodable", "call-names", "reserved-kwargs"),
}


def _unknown_key(origin: str, key: str, value: Any, table: Optional[str] = None) -> ConfigError:
    """An unknown setting, with the closest known one (``difflib``, as for rule selectors): a top-level key is
    matched against the settings, ``extend`` and the keys of the table settings (``selector`` ->
    ``test-lists.selector``, which TOML also reads as a dotted key); a key inside ``[test-lists]`` /
    ``[direct-route]`` against that table's keys. A table of known settings (ruff's ``[tool.ruff.lint]`` habit:
    ``[lint]``) is told that trtlint's settings are not grouped. The message names the key's line."""
    import difflib

    norm = key.replace("_", "-")
    name = f"{table}.{key}" if table else key
    line = _nested_key_line(origin, table, key) if table else key_line(origin, key)
    at = f"{origin}:{line}" if line else origin
    if table:
        cands = {k: f"{table}.{k}" for k in _TABLE_KEYS[table]}
    else:
        cands = {f"{t}.{k}": f"{t}.{k}" for t, ks in _TABLE_KEYS.items() for k in ks}
        cands.update({k: f"{t}.{k}" for t, ks in _TABLE_KEYS.items() for k in ks})  # a table's key written alone
        cands.update({k: k for k in [*_KEYS, "extend"]})
        if isinstance(value, dict) and value and all(k.replace("_", "-") in _KEYS for k in value):
            header = f"[tool.trtlint.{key}]" if Path(origin).name == "pyproject.toml" else f"[{key}]"
            where = "directly under [tool.trtlint]" if Path(origin).name == "pyproject.toml" else "at the top level"
            return ConfigError(
                f"{at}: unknown setting '{key}': trtlint has no '{header}' table; write "
                f"{', '.join(repr(k) for k in value)} {where}"
            )
    near = difflib.get_close_matches(norm, list(cands), n=1, cutoff=0.6)
    if near:
        return ConfigError(f"{at}: unknown setting '{name}'; did you mean '{cands[near[0]]}'?")
    known = sorted(_TABLE_KEYS[table]) if table else sorted([*_KEYS, "extend"])
    return ConfigError(f"{at}: unknown setting '{name}' (known: {', '.join(known)})")


def _nested_key_line(origin: str, table: str, key: str) -> Optional[int]:
    """The line of ``key`` inside ``table`` (after its ``[...table]`` header, or written ``table.key =``)."""
    try:
        lines = Path(origin).read_text(encoding="utf-8", errors="replace").splitlines()
    except (OSError, ValueError):
        return None
    start = (key_line(origin, table) or 1) - 1
    pat = re.compile(r"^\s*(?:[\"']?" + re.escape(table) + r"[\"']?\s*\.\s*)?[\"']?" + re.escape(key) + r"[\"']?\s*=")
    return next((i for i, text in enumerate(lines[start:], start + 1) if pat.match(text)), None)


_HEADER = re.compile(r"^\s*\[\s*tool\s*\.\s*trtlint\s*(?:\.\s*([^\]]*?))?\s*\]")


def _header_in_own_file(origin: str) -> ConfigError:
    """``[tool.trtlint]`` (and ``[tool.trtlint.severity]`` ...) written in a trtlint.toml: pyproject.toml's
    headers, which would read as an unknown setting ``tool``; the message says what to write instead."""
    name = Path(origin).name
    try:
        lines = Path(origin).read_text(encoding="utf-8", errors="replace").splitlines()
    except (OSError, ValueError):
        lines = []
    found = [(i, m.group(1)) for i, text in enumerate(lines, 1) if (m := _HEADER.match(text))]
    if not found:  # dotted keys (tool.trtlint.select = ...) or a file not read
        dotted = next((i for i, text in enumerate(lines, 1) if re.match(r"\s*tool\s*\.\s*trtlint\s*\.", text)), None)
        return ConfigError(f"{origin}{f':{dotted}' if dotted else ''}: 'tool.trtlint' is pyproject.toml's table; "
                           f"in {name} write the settings at the top level (drop the 'tool.trtlint.' prefix)")
    line = found[0][0]
    subs = [f"'[tool.trtlint.{t}]' as '[{t}]'" for _, t in found if t]
    if any(t is None for _, t in found):
        msg = (f"'[tool.trtlint]' is pyproject.toml's table header; in {name} write the settings at the top level "
               "(drop the header)")
        if subs:
            msg += ", and " + ", ".join(subs)
    else:
        first = found[0][1]
        msg = f"'[tool.trtlint.{first}]' is pyproject.toml's table header; in {name} write " + ", ".join(subs)
    return ConfigError(f"{origin}:{line}: {msg}")


def _test_lists(value: Any, origin: str) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(f"{origin}: 'test-lists' must be a table (files, selector, test-files)")
    out: dict[str, Any] = {}
    for k, v in value.items():
        key = k.replace("-", "_")
        if key in ("files", "test_files"):
            if isinstance(v, str):
                v = [v]
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise ConfigError(f"{origin}: 'test-lists.{k}' must be a list of globs")
        elif key == "selector":
            if v not in ("function-name", "nodeid"):
                raise ConfigError(f"{origin}: 'test-lists.selector' must be \"function-name\" or \"nodeid\"")
        else:
            raise _unknown_key(origin, k, v, table="test-lists")
        out[key] = v
    if "files" not in out:
        raise ConfigError(f"{origin}: 'test-lists' needs 'files' (globs of the YAML test lists)")
    return out


def load_settings(target: Path, overrides: Optional[dict] = None, config_path: Optional[Path] = None,
                  check_selectors: Optional[Callable[[Settings, list[str]], None]] = None) -> Settings:
    """Settings for checking ``target`` (a directory or a file). ``check_selectors(settings, attrs)`` judges
    the rule selectors of ``attrs`` against the rule catalogue, first those the config files set, then those
    the command line overrides (``checks.registry.load_checked_settings`` passes the registry's: the
    catalogue lives above the config in the import order)."""
    target = target.resolve()
    root = target if target.is_dir() else target.parent
    s = Settings(root=root)
    for f in fields(Settings):
        s.origins.setdefault(f.name, "default")
    found: Optional[tuple[Path, dict]]
    if config_path is not None:
        data = _load_toml(config_path)
        if config_path.name == "pyproject.toml":
            data = data.get("tool", {}).get("trtlint", {})
        found = (config_path, data)
    else:
        found = find_config(root)
    if found:
        path, table = found
        s.config_file = path
        chain = _extend_chain(path, table)
        s.config_chain = [p for p, _ in chain]
        for p, t in reversed(chain):  # the furthest ancestor first; the closest file wins
            apply_table(s, t, str(p))
        if check_selectors is not None:
            check_selectors(s, [a for a in SELECTOR_KEYS if s.origins.get(a) not in ("default", "command line")])
    if overrides:
        for k, v in overrides.items():
            if v is None:
                continue
            setattr(s, k, v)
            s.origins[k] = "command line"
        if check_selectors is not None:
            check_selectors(s, [a for a in SELECTOR_KEYS if overrides.get(a) is not None])
    return s


# the settings that hold rule selectors (judged against the rule catalogue by checks.registry.check_selectors)
SELECTOR_KEYS = ("select", "extend_select", "ignore")


def _section(path: Path) -> dict:
    data = _load_toml(path)
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        section = tool.get("trtlint", {}) if isinstance(tool, dict) else {}
        if not isinstance(section, dict):
            raise ConfigError(f"{path}: [tool.trtlint] must be a table")
        return section
    return data


def _extend_chain(path: Path, table: dict) -> list[tuple[Path, dict]]:
    """The config file and those it extends (``extend = "../pyproject.toml"``, relative to the file),
    closest first. A missing file or a cycle is an error naming the file."""
    chain = [(path, table)]
    seen = {path.resolve()}
    cur_path, cur = path, table
    while "extend" in cur:
        ext = cur["extend"]
        if not isinstance(ext, str):
            raise ConfigError(f"{cur_path}: 'extend' must be a path string")
        nxt = Path(ext).expanduser()
        nxt = (nxt if nxt.is_absolute() else cur_path.resolve().parent / nxt).resolve()
        if nxt in seen:
            raise ConfigError(f"{cur_path}: 'extend' makes a cycle through {nxt}")
        if not nxt.exists():
            raise ConfigError(f"{cur_path}: 'extend' names {nxt}, which does not exist")
        if len(chain) > MAX_EXTEND:
            raise ConfigError(f"{cur_path}: 'extend' chain longer than {MAX_EXTEND} files; not followed to {nxt}")
        seen.add(nxt)
        cur_path, cur = nxt, _section(nxt)
        chain.append((nxt, cur))
    return chain
