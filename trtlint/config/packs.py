"""Rule packs: domain knowledge as data (``rules/*.yaml``), validated on load.

The shipped packs live in the repository's top-level ``rules/`` folder and are installed in the wheel as
``trtlint/rules_data``. Users add their own packs with ``rule-packs = ["path.yaml"]``; a user pack's lists
extend the shipped ones and its profiles override shipped profiles of the same name. The schema a pack is
validated against is :mod:`trtlint.config.packschema`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable, NamedTuple, Optional

from trtlint.base import methodcache
from trtlint.base.errors import ConfigError
from trtlint.config.onnx_importers import (  # noqa: F401 - parse_version, version_at_least: used through this module too
    OnnxImporters, parse_version, version_at_least)


def shipped_dir() -> Path:
    """The shipped rule packs: ``trtlint/rules_data``, in a source checkout a link to the top-level ``rules/``
    folder, in an installed wheel a folder of the package (pyproject.toml ships every package's data)."""
    return (Path(__file__).resolve().parent.parent / "rules_data").resolve()


_METHODS = methodcache.begin(__file__)  # the dataclasses' methods compiled once (until end())


@dataclass(frozen=True)
class ApiEntry:
    name: str
    what: str
    severity: Optional[str] = None

    def matches(self, callee: str) -> bool:
        if self.name.endswith("*"):
            return callee.startswith(self.name[:-1])
        return callee == self.name


@dataclass(frozen=True)
class BehaviourEntry(ApiEntry):
    """A macro or function that throws, exits or returns a status when its check fails."""

    behaviour: str = "throw"  # "throw" | "exit" | "status"
    # it throws only on an index out of range (``std::vector::at``): a program error, as a failed assert, not a
    # runtime failure; TRT204 does not count it as a throw site
    index_check: bool = False


@dataclass(frozen=True)
class StreamHandle:
    """A library whose handle carries a stream: work calls (``uses``) need a ``bind`` call on the same path."""

    library: str
    uses: tuple[str, ...]
    bind: tuple[str, ...]
    exclude: tuple[str, ...] = ()

    @staticmethod
    def _any(pats: tuple[str, ...], name: str) -> bool:
        return _fn_any(pats, name)

    def is_use(self, name: str) -> bool:
        return self._any(self.uses, name) and not self._any(self.exclude, name)

    def is_bind(self, name: str) -> bool:
        return self._any(self.bind, name)


@dataclass(frozen=True)
class Profile:
    """A codebase profile: how it is detected, and the dirs, defines, macros and excludes it brings."""

    name: str
    description: str = ""
    detect: tuple[str, ...] = ()
    plugin_dirs: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    feature_macros: tuple[str, ...] = ()  # fnmatch patterns of optional-feature macros the real build defines
    onnx_plugin_domains: tuple[str, ...] = ()
    builtin_domains: tuple[str, ...] = ("", "ai.onnx", "ai.onnx.ml", "trt")
    model_files: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    direct_route: Optional[dict] = None
    # YAML test lists CI selects tests by: {files: [globs], selector: function-name|nodeid, test_files: [globs]}
    test_lists: Optional[dict] = None


@dataclass(frozen=True)
class TrtMethod:
    name: str
    pure: bool
    noexcept: bool
    temperature: str  # "hot" | "warm" | "cold"
    returns: Optional[str] = None  # "status": an int32_t status (0 = success)
    deprecated: Optional[str] = None
    removed: Optional[str] = None
    replacement: Optional[str] = None
    # the types of the pointer parameters TensorRT never passes null, as the headers declare them ("char const*")
    nonnull: tuple[str, ...] = ()


def type_key(spelling: str) -> str:
    """A pointer type as compared with a pack's ``nonnull`` (``TrtMethod``): namespaces dropped, a leading ``const``
    moved after its type, no spaces (``const nvinfer1::PluginTensorDesc *`` and ``PluginTensorDesc const*`` are
    ``PluginTensorDescconst*``)."""
    t = re.sub(r"\b\w+::", "", spelling).strip()
    t = re.sub(r"^const\s+(\w+)", r"\1 const", t)
    return re.sub(r"\s+", "", t)


@dataclass(frozen=True)
class TrtInterface:
    name: str
    kind: str  # "plugin" | "capability" | "creator"
    methods: tuple[TrtMethod, ...] = ()
    capability: Optional[str] = None  # kCORE | kBUILD | kRUNTIME
    header: str = ""
    extends: Optional[str] = None
    since: Optional[str] = None
    deprecated: Optional[str] = None
    removed: Optional[str] = None
    replacement: Optional[str] = None
    # (release, advice) pairs: the advice for a target older than that release, whose headers lack the replacement
    # (IPluginV2 was deprecated in 8.5, IPluginV3 arrived in 10.0): :func:`advice_at`
    replacement_before: tuple[tuple[str, str], ...] = ()


class TrtField(NamedTuple):
    """A field of one of TensorRT's own creators (rules/tensorrt_plugin_fields.yaml): its ``PluginFieldType``, whether
    ``createPlugin`` asserts it present, the one length it accepts, and its default as written (None: unknown)."""
    name: str
    type: Optional[str] = None
    required: bool = False
    length: Optional[int] = None
    default: Optional[str] = None


@dataclass(frozen=True)
class TrtApi:
    name: str
    deprecated: Optional[str] = None
    removed: Optional[str] = None
    replacement: Optional[str] = None
    replacement_before: tuple[tuple[str, str], ...] = ()  # as TrtInterface's


def advice_at(replacement: Optional[str], before, target: str) -> Optional[str]:
    """The replacement to advise for code that targets ``target``: ``replacement`` (the newest headers' advice),
    unless ``before`` (``{release: advice}`` or ``(release, advice)`` pairs) holds a release newer than the target:
    then the advice of the oldest such release, the one the target's own headers give (a plugin on IPluginV2 for
    TensorRT 8.6 is told to move to IPluginV2DynamicExt, not to IPluginV3, which 8.6 does not have)."""
    pairs = sorted((before.items() if isinstance(before, dict) else before or ()),
                   key=lambda kv: parse_version(str(kv[0])) or (0,))
    for rel, text in pairs:
        if not version_at_least(target, str(rel)):
            return text
    return replacement


@dataclass
class Packs:
    """The rule packs merged (shipped, then the user's): the API tables, the TensorRT data, the profiles."""

    allocating: list[ApiEntry] = field(default_factory=list)
    host_allocating: list[ApiEntry] = field(default_factory=list)  # host heap and containers (TRT306, opt-in)
    synchronizing: list[ApiEntry] = field(default_factory=list)
    profiles: dict[str, Profile] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    # creators shipped by libraries outside the project: name -> (library, namespace, versions)
    externals: dict[str, tuple[str, str, tuple[str, ...]]] = field(default_factory=dict)
    # TensorRT's plugin library per release: "10.8" -> {(name, version): ((field, PluginFieldType or None), ...)}
    plugin_fields: dict[str, dict[tuple[str, str], tuple["TrtField", ...]]] = field(default_factory=dict)
    # TensorRT Python API deprecations (rules/tensorrt_python.yaml): name -> entry dict
    tensorrt_python_api: dict[str, dict] = field(default_factory=dict)
    # rules/cpp_behaviour.yaml
    macros: list[BehaviourEntry] = field(default_factory=list)
    functions: list[BehaviourEntry] = field(default_factory=list)
    temperatures: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)  # (method, temp, families)
    temperature_severity: dict[str, str] = field(default_factory=dict)
    status_apis: list[ApiEntry] = field(default_factory=list)
    status_except: list[ApiEntry] = field(default_factory=list)
    stream_exempt: list[ApiEntry] = field(default_factory=list)
    size_queries: list[ApiEntry] = field(default_factory=list)
    status_queries: list[ApiEntry] = field(default_factory=list)  # TRT304: queries whose status is not reported
    status_teardown: list[ApiEntry] = field(default_factory=list)  # TRT304: releases not reported in teardown
    teardown_methods: list[str] = field(default_factory=list)  # plugin methods that tear down (and destructors)
    stream_handles: list[StreamHandle] = field(default_factory=list)

    def temperature(self, method: str, family: str) -> str:
        """"hot", "warm" or "cold": how often TensorRT calls ``method`` of a plugin of ``family``."""
        for m, t, fams in self.temperatures:
            if m == method and (not fams or family in fams):
                return t
        return "cold"

    def behaviour(self, call) -> Optional[BehaviourEntry]:
        """What a call (a :class:`~trtlint.base.facts.Call`) does on failure, from the macro / function tables."""
        if call.kind == "macro":
            return self.lookup("macros", call.callee)
        if call.kind == "call":
            return self.lookup("functions", call.callee) or (
                self.lookup("macros", call.callee) if call.usr is None else None
            )
        return None
    # op_types TensorRT's ONNX parser imports itself (rules/onnx_tensorrt.yaml), and which parser that is
    onnx_builtin_ops: set[str] = field(default_factory=set)
    onnx_parser: str = ""
    onnx_importers: OnnxImporters = field(default_factory=OnnxImporters)  # per release: onnx_importers.imports()
    # what the built-in importers restrict (rules/onnx_tensorrt_restrictions.yaml): the pack's mapping, merged
    onnx_restrictions: dict = field(default_factory=dict)
    # the TensorRT C++ plugin interfaces (rules/tensorrt_interfaces.yaml)
    trt_interfaces: dict[str, TrtInterface] = field(default_factory=dict)
    trt_apis: list[TrtApi] = field(default_factory=list)
    trt_default_version: str = "11.1"

    def nonnull_arguments(self, method: str) -> frozenset:
        """The :func:`type_key` of each pointer parameter type TensorRT never passes null to the interface method
        named ``method``, in any interface that declares it (the types tell the interfaces' signatures apart)."""
        memo = self.__dict__.setdefault("_nonnull", {})
        got = memo.get(method)
        if got is None:
            got = memo[method] = frozenset(type_key(t) for it in self.trt_interfaces.values() for m in it.methods
                                           if m.name == method for t in m.nonnull)
        return got

    def trt_method(self, iface: str, name: str) -> Optional[TrtMethod]:
        """A method of an interface or of the interfaces it extends."""
        seen = set()
        cur: Optional[str] = iface
        while cur and cur not in seen:
            seen.add(cur)
            it = self.trt_interfaces.get(cur)
            if it is None:
                return None
            for m in it.methods:
                if m.name == name:
                    return m
            cur = it.extends
        return None

    def external_fields(self, name: str, version: Optional[str], release: Optional[str]):
        """(release, fields) of TensorRT's own creator ``name`` (``version``; None: any) as the plugin library of
        ``release`` declares them: the newest release in the data not newer than ``release`` (the oldest when all
        are newer; the newest when ``release`` is None). None when that release has no such creator or no fields
        were read for it."""
        if not self.plugin_fields:
            return None

        def key(r: str) -> tuple:
            return tuple(int(x) if x.isdigit() else 0 for x in r.split(".")[:2])

        rels = sorted(self.plugin_fields, key=key)
        rel = rels[-1]
        if release:
            older = [r for r in rels if key(r) <= key(release)]
            rel = older[-1] if older else rels[0]
        table = self.plugin_fields[rel]
        for (n, v), fields in table.items():
            if n == name and (version is None or v == version) and fields:
                return rel, fields
        return None

    def external_creator(self, name: str) -> Optional[tuple[str, str, tuple[str, ...]]]:
        return self.externals.get(name)

    def lookup(self, table: str, callee: str) -> Optional[ApiEntry]:
        key = (table, callee)
        memo = self.__dict__.setdefault("_memo", {})
        if key in memo:
            return memo[key]
        name = normalize_callee(callee)
        # per table: exact names -> (position, entry) of the first such entry, and the prefix entries in order
        tables = self.__dict__.setdefault("_by_name", {})
        idx = tables.get(table)
        if idx is None:
            entries = list(getattr(self, table))
            if table in ("macros", "functions"):
                entries.reverse()  # a user pack's entry overrides a shipped one of the same name
            exact: dict = {}
            prefixes: dict = {}
            for i, e in enumerate(entries):
                if e.name.endswith("*"):
                    prefixes.setdefault(e.name[:-1], (i, e))
                else:
                    exact.setdefault(e.name, (i, e))
            idx = tables[table] = (exact, prefixes, sorted({len(k) for k in prefixes}))
        exact, prefixes, lengths = idx
        best = exact.get(name)
        for n in lengths:  # every prefix entry the name starts with; the first in table order wins
            if n > len(name):
                break
            cand = prefixes.get(name[:n])
            if cand is not None and (best is None or cand[0] < best[0]):
                best = cand
        hit = best[1] if best is not None else None
        if hit is None:
            # the versioned symbol a CUDA library header maps the API name to (cublas_v2.h: `#define cublasDestroy
            # cublasDestroy_v2`; cuda.h: cuMemAlloc -> cuMemAlloc_v2): the entry of the API name
            m = _VERSIONED.fullmatch(name)
            if m is not None:
                hit = self.lookup(table, m.group(1))
        memo[key] = hit
        return hit


methodcache.end(_METHODS)


@lru_cache(maxsize=1 << 16)
def _fn_any(pats: tuple[str, ...], name: str) -> bool:
    """Whether ``name`` matches one of the fnmatch patterns ``pats`` (memoised: rules ask the same few
    hundred callee names again and again)."""
    import fnmatch

    return any(fnmatch.fnmatchcase(name, p) for p in pats)


_VERSIONED = re.compile(r"((?:\w+::)*(?:cu|nccl)\w*)_v\d+")
_INLINE_NS = re.compile(r"::(?:__cxx11|__1|__cxx1998|_V2)(?=::)")


@lru_cache(maxsize=1 << 16)
def normalize_callee(name: str) -> str:
    name = _INLINE_NS.sub("", name)
    name = re.sub(r"<[^<>]*(?:<[^<>]*>[^<>]*)*>", "", name)
    if name.startswith("::"):
        name = name[2:]
    return name


def _path_of(err) -> str:
    return ".".join(str(p) for p in err.absolute_path) or "(top level)"


def _loader():
    """PyYAML's safe loader, libyaml's when the wheel has it (~10x faster). yaml is imported here, not at the
    module's top: a warm run reads the shipped packs from their JSON copy (:func:`_shipped`) and never needs it."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# a rule pack larger than this is refused before it is read
PACK_LIMIT = 8 * 1024 * 1024
# how deep a user pack's mappings and lists may nest (the shipped packs nest 6 deep); libyaml's time grows with
# the square of the depth
_MAX_DEPTH = 64


def _screen(text: str, path: Path) -> None:
    """Refuse a user pack that could expand or nest without bound, from its events (before anything is built):
    an alias (``*name``: a few lines of aliases make a billion-laughs bomb whose copies any walk over the data
    multiplies), or nesting deeper than :data:`_MAX_DEPTH`. The scan stops at the first offence."""
    import yaml

    depth = 0
    for ev in yaml.parse(text, Loader=_loader()):
        if isinstance(ev, yaml.AliasEvent):
            line = ev.start_mark.line + 1 if ev.start_mark is not None else "?"
            raise ConfigError(
                f"rule pack {path}:{line}: YAML alias '*{ev.anchor}': aliases are not allowed in rule packs "
                "(they can expand a small file without bound); write the value out"
            )
        if isinstance(ev, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > _MAX_DEPTH:
                line = ev.start_mark.line + 1 if ev.start_mark is not None else "?"
                raise ConfigError(f"rule pack {path}:{line}: nested more than {_MAX_DEPTH} levels deep")
        elif isinstance(ev, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


def load_pack_file(path: Path, validate: bool = True, root: Optional[Path] = None) -> dict:
    """Read and (unless ``validate`` is False: the shipped packs, validated by the test suite) check a pack.

    A pack is read through :mod:`trtlint.base.safeio`: a regular file of at most :data:`PACK_LIMIT` bytes, and with
    ``root`` (a user pack) one inside the project root after resolving links. A user pack is screened for
    aliases and deep nesting before it is loaded (:func:`_screen`)."""
    from trtlint.base.safeio import read_bytes

    try:
        return pack_from_bytes(read_bytes(path, root=root, limit=PACK_LIMIT), path, validate)
    except OSError as e:
        raise ConfigError(f"rule pack {path}: cannot read: {e.strerror or e}") from None


def pack_from_bytes(raw: bytes, path: Path, validate: bool = True) -> dict:
    """:func:`load_pack_file` on a pack's bytes already read."""
    import yaml

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = 1 + e.object[: e.start].count(b"\n")
        raise ConfigError(f"rule pack {path}:{line}: not valid UTF-8 (byte at offset {e.start})") from None
    try:
        if validate:
            _screen(text, path)
        data = yaml.load(text, Loader=_loader())
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise ConfigError(f"rule pack {path}:{where}: invalid YAML: {getattr(e, 'problem', e)}") from None
    except RecursionError:
        raise ConfigError(f"rule pack {path}: nested too deeply") from None
    if not isinstance(data, dict):
        raise ConfigError(f"rule pack {path}: must be a mapping with 'version: 1'")
    if not validate:
        return data
    import jsonschema  # only for user packs (and tests): importing it costs more than a warm run's checks

    from trtlint.config.packschema import PACK_SCHEMA

    errors = sorted(jsonschema.Draft7Validator(PACK_SCHEMA).iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        raise ConfigError(f"rule pack {path}: key '{_path_of(e)}': {e.message}")
    return data


def _merge(p: Packs, data: dict, path: Path) -> None:
    p.files.append(str(path))
    for e in data.get("tensorrt_python_api", []):
        p.tensorrt_python_api[e["name"]] = dict(e)
    for table in ("allocating", "host_allocating", "synchronizing"):
        for e in data.get(table, []):
            getattr(p, table).append(ApiEntry(e["name"], e["what"], e.get("severity")))
    for table in ("macros", "functions"):
        for e in data.get(table, []):
            getattr(p, table).append(BehaviourEntry(e["name"], e["what"], e.get("severity"), e["behaviour"],
                                                      bool(e.get("index_check", False))))
    for e in data.get("temperatures", []):
        p.temperatures.append((e["method"], e["temperature"], tuple(e.get("families", ()))))
    p.temperature_severity.update(data.get("temperature_severity", {}))
    for table in ("status_apis", "status_except", "stream_exempt", "size_queries", "status_queries", "status_teardown"):
        for e in data.get(table, []):
            getattr(p, table).append(ApiEntry(e["name"], e["what"], e.get("severity")))
    p.teardown_methods.extend(data.get("teardown_methods", []))
    for e in data.get("stream_handles", []):
        p.stream_handles.append(
            StreamHandle(e["library"], tuple(e["uses"]), tuple(e["bind"]), tuple(e.get("except", ())))
        )
    trt = data.get("tensorrt")
    if trt:
        if trt.get("default_version"):
            p.trt_default_version = trt["default_version"]
        for iname, it in (trt.get("interfaces") or {}).items():
            p.trt_interfaces[iname] = TrtInterface(
                name=iname,
                kind=it["kind"],
                methods=tuple(TrtMethod(**{**m, "nonnull": tuple(m.get("nonnull") or ())}) for m in it.get("methods", [])),
                capability=it.get("capability"),
                header=it.get("header", ""),
                extends=it.get("extends"),
                since=it.get("since"),
                deprecated=it.get("deprecated"),
                removed=it.get("removed"),
                replacement=it.get("replacement"),
                replacement_before=tuple((str(k), v) for k, v in (it.get("replacement_before") or {}).items()),
            )
        for a in trt.get("apis", []):
            a = dict(a)
            a["replacement_before"] = tuple((str(k), v) for k, v in (a.get("replacement_before") or {}).items())
            p.trt_apis.append(TrtApi(**a))
    tpf = data.get("tensorrt_plugin_fields")
    if tpf:
        for rel, body in tpf["releases"].items():
            table = p.plugin_fields.setdefault(str(rel), {})
            for c in body["creators"]:
                # fields only: which names are TensorRT's own stays the curated ``external_creators`` list (older
                # releases' data holds demo plugins with generic names, LayerNorm, Split, that projects define too)
                table[(c["name"], c["version"])] = tuple(
                    TrtField(f["name"], f.get("type"), bool(f.get("required")), f.get("length"), f.get("default"))
                    for f in c["fields"])
    ext = data.get("external_creators")
    if ext:
        for cname, versions in ext["creators"].items():
            p.externals[cname] = (ext["library"], ext.get("namespace", ""), tuple(versions))
        for cname, versions in ext.get("retired", {}).items():
            p.externals.setdefault(cname, (ext["library"] + ", before 11.0", ext.get("namespace", ""), tuple(versions)))
    imp = data.get("onnx_importers")
    if imp:
        p.onnx_builtin_ops.update(imp["ops"])
        p.onnx_parser = imp.get("parser", p.onnx_parser)
        p.onnx_importers.add(imp)
    res = data.get("onnx_restrictions")
    if res:
        cur = p.onnx_restrictions
        for k, v in res.items():
            if isinstance(v, list):
                cur[k] = list(cur.get(k, [])) + list(v)
            elif isinstance(v, dict):
                cur[k] = {**cur.get(k, {}), **v}
            else:
                cur[k] = v
    for name, prof in (data.get("profiles") or {}).items():
        p.profiles[name] = Profile(
            name=name,
            description=prof.get("description", ""),
            detect=tuple((prof.get("detect") or {}).get("all", [])),
            plugin_dirs=tuple(prof.get("plugin_dirs", [])),
            include_dirs=tuple(prof.get("include_dirs", [])),
            defines=tuple(prof.get("defines", [])),
            feature_macros=tuple(prof.get("feature_macros", [])),
            onnx_plugin_domains=tuple(prof.get("onnx_plugin_domains", [])),
            builtin_domains=tuple(prof.get("builtin_domains", ["", "ai.onnx", "ai.onnx.ml", "trt"])),
            model_files=tuple(prof.get("model_files", [])),
            exclude=tuple(prof.get("exclude", [])),
            direct_route=prof.get("direct_route"),
            test_lists=prof.get("test_lists"),
        )


@lru_cache(maxsize=8)
def _shipped_sources() -> tuple[list[Path], list[bytes], str]:
    """The shipped packs' files, their bytes, and the digest of their names and bytes (the kept copies' name)."""
    from trtlint.base.safeio import read_bytes

    files = sorted(shipped_dir().glob("*.yaml"))
    if not files:  # an installation without its data: every pack-driven rule would pass silently
        raise ConfigError(f"trtlint's shipped rule packs are missing (no *.yaml in {shipped_dir()}): reinstall trtlint")
    raws = []
    for f in files:
        try:
            raws.append(read_bytes(f, limit=PACK_LIMIT))
        except OSError as e:
            raise ConfigError(f"rule pack {f}: cannot read: {e.strerror or e}") from None
    h = hashlib.sha256(b"shipped-packs-1\0")
    for f, raw in zip(files, raws):
        h.update(f"{f.name}\0{len(raw)}\0".encode() + raw)
    return files, raws, h.hexdigest()[:32]


def _kept(cache: Optional[Path], name: str, key: str, files: list[Path]) -> Optional[list[dict]]:
    """The parsed packs kept as ``cache/name``, or None when missing, unreadable or not what ``key`` names."""
    from trtlint.base.safeio import read_bytes

    if cache is None:
        return None
    try:
        kept = json.loads(read_bytes(cache / name, limit=4 * PACK_LIMIT))
        if isinstance(kept, dict) and kept.get("key") == key and kept.get("names") == [f.name for f in files]:
            datas = kept["packs"]
            if isinstance(datas, list) and len(datas) == len(files) and all(isinstance(d, dict) for d in datas):
                return datas
    except (OSError, ValueError, KeyError):
        pass
    return None


@lru_cache(maxsize=8)
def _shipped() -> tuple[tuple[Path, dict], ...]:
    """The shipped packs, parsed. Parsing their YAML (and importing PyYAML) took a third of a warm run, so the
    parsed packs are kept as JSON in the per-user cache (:func:`packs_cache_dir`), named by a digest of the
    packs' names and bytes: an edited pack is a new name, and a copy that is missing, unreadable or not what
    the digest names is parsed again from the YAML. Only data whose JSON round trip is equal is kept."""
    files, raws, key = _shipped_sources()
    cache = packs_cache_dir()
    datas = _kept(cache, f"{key}.json", key, files)
    if datas is not None:
        return tuple(zip(files, datas))
    out = tuple((f, pack_from_bytes(raw, f, validate=False)) for f, raw in zip(files, raws))
    if cache is not None:
        _keep(cache, key, [f.name for f in files], [d for _, d in out])
    return out


@lru_cache(maxsize=8)
def shipped_profiles() -> Packs:
    """The shipped packs' profiles alone, as a :class:`Packs` holding only them: what finding the project root
    and the profile of a run needs (a warm run the run memo answers reads no other table). Kept as a JSON copy
    of its own beside the whole packs' (``<key>-profiles.json``: a ~100 KB copy less to parse)."""
    files, _raws, key = _shipped_sources()
    cache = packs_cache_dir()
    datas = _kept(cache, f"{key}-profiles.json", key, files)
    if datas is None:
        datas = [{"profiles": d["profiles"]} if d.get("profiles") else {} for _, d in _shipped()]
        if cache is not None:
            _keep(cache, key, [f.name for f in files], datas, suffix="-profiles")
    p = Packs()
    for f, data in zip(files, datas):
        _merge(p, {"profiles": data.get("profiles")} if data.get("profiles") else {}, f)
    return p


def packs_cache_dir() -> Optional[Path]:
    """Where the parsed shipped packs are kept: ``$XDG_CACHE_HOME/trtlint/packs`` (default
    ``~/.cache/trtlint/packs``); None when there is no home directory."""
    from trtlint.base import envvars

    xdg = envvars.text("XDG_CACHE_HOME")
    try:
        return Path(xdg) / "trtlint" / "packs" if xdg else Path.home() / ".cache" / "trtlint" / "packs"
    except (RuntimeError, KeyError, OSError):
        return None


def _keep(cache: Path, key: str, names: list[str], datas: list[dict], suffix: str = "") -> None:
    """Write the parsed packs' JSON copy (``<key><suffix>.json``, atomically; a failure only costs the next run
    the YAML parse) and remove the copies of other pack versions."""
    import tempfile

    payload = {"key": key, "names": names, "packs": datas}
    try:
        text = json.dumps(payload, sort_keys=False)
        if json.loads(text) != payload:  # e.g. a non-string mapping key or a date: keep parsing the YAML
            return
        cache.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, cache / f"{key}{suffix}.json")
        for old in cache.glob("*.json"):  # copies of other pack versions (a trtlint upgrade, an edited pack)
            if old.name not in (f"{key}.json", f"{key}-profiles.json"):
                old.unlink(missing_ok=True)
    except (OSError, TypeError, ValueError):
        pass


def load_packs(extra: Iterable[Path] = (), root: Optional[Path] = None) -> Packs:
    """The shipped packs and then the user's ``extra`` ones. With ``root`` (the project root; a run always
    gives it) a user pack must lie inside it, links resolved: the config that names it is, on a pull request,
    attacker-controlled, and a pack outside the project is refused with an error naming the setting."""
    p = Packs()
    for f, data in _shipped():
        _merge(p, data, f)
    for f in extra:
        f = Path(f)
        if root is not None:
            from trtlint.base.safeio import inside

            if not inside(f, root):
                real = os.path.realpath(f)
                via = f" (a link to {real})" if real != os.path.abspath(f) else ""
                raise ConfigError(
                    f"rule pack {f}{via}: outside the project root {root} (setting 'rule-packs'); "
                    "rule packs are read only from inside the project"
                )
        _merge(p, load_pack_file(f, root=root), f)
    return p


def detect_profile(packs: Packs, root: Path, requested: str = "auto") -> Profile:
    if requested and requested != "auto":
        if requested not in packs.profiles:
            raise ConfigError(
                f"unknown profile '{requested}' (known: {', '.join(sorted(packs.profiles))})"
            )
        return packs.profiles[requested]
    for name, prof in packs.profiles.items():
        if name == "generic" or not prof.detect:
            continue
        if all((root / d).exists() for d in prof.detect):
            return prof
    return packs.profiles.get("generic") or Profile(name="generic")
