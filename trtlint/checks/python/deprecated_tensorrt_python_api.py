from __future__ import annotations

import re
from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from trtlint.config.packs import advice_at, version_at_least
from ..base import Rule

_HEAD = "import tensorrt as trt\n"


class DeprecatedTensorrtPythonApi(Rule):
    """TensorRT Python APIs deprecated or removed in the targeted TensorRT version.

    ## What it does
    Reports uses of TensorRT Python APIs listed in the `tensorrt_python.yaml` rule pack (with the version
    each was deprecated and removed in, and its replacement) in files that import `tensorrt`: methods and
    attributes by name (`builder.build_engine`, `context.execute_async_v2`, `config.max_workspace_size`) and
    enum members resolved through imports (`trt.BuilderFlag.STRICT_TYPES`). The target comes from the
    `tensorrt-version` config key (`"10.8"`, or `"10.x"` for the newest 10 release, as for TRT207), else from
    the version inferred from the tree (a `tensorrt==8.6.1` pin in `requirements.txt`, `find_package(TensorRT
    8.6)`, ...; the message names where): APIs removed at or before it are errors, APIs deprecated at or
    before it warnings. With no version set or found, nothing is judged (the run's summary line says so). Uses under a version test (`if trt.__version__ ...`, `hasattr(...)`) or a `try`/`except` (the
    try body, and the fallback in a handler of `AttributeError`, `ImportError` or `Exception`) are not reported,
    nor uses inside a helper that only such guarded code calls: a module function or method whose every
    reference in its module is under a version test, or in a helper that is itself guarded so (`if
    trt_version() < "10.0": return self._forward_pre_10(*inputs)`); a helper also called elsewhere in the
    module, or named in a string, is judged. A name matched on a receiver the code says is an instance of one of the project's own
    classes that declares that name itself is the project's member, not TensorRT's, and is not reported:
    `self.build_engine()` in a class with its own `def build_engine`, `args.max_workspace_size` where `args` is
    what argparse parsed (`parser.parse_args()`, or a script's `parse_args()` returning it; bound in the function
    or, for a name no function binds, at the script's top level), `self.settings.max_workspace_size` where
    `settings: LowerSettings` and the dataclass declares `max_workspace_size: int`. The code says it by `self`,
    an annotation (of a parameter, a local or a class field) or a constructor call (`s = LowerSettings()`,
    `LowerSettings().max_workspace_size`); an untyped receiver, or one typed as a TensorRT class or an alias of one,
    is still judged by the name. The project's class may be named through its package, whatever its name:
    `builder = tensorrt_llm.Builder()` or `from tensorrt_llm import Builder` is the `Builder` of
    `tensorrt_llm/builder.py` when `tensorrt_llm/__init__.py` binds the name by `from .builder import Builder` (and by
    nothing else), so its `builder.build_engine(network, config)` is the project's method; `trt.Builder`, a name the
    package does not bind (or binds two ways, or from `tensorrt`, or by a star import) is judged by the name. A keyword
    argument (`run(max_workspace_size=...)`) is no attribute use at all.
    One finding per API and file: the other uses in the file are its related locations. The APIs a file uses
    that the same release removed (or deprecated) all say one thing about the file, that it is code for an older
    TensorRT: they are one finding, at the first such use, naming the others ("Also removed in TensorRT 10.0 in this
    file: binding_is_input, get_binding_shape"), each of them (and each of its uses) a related location. In a file
    that uses an API the target removed, the APIs the target only deprecated are part of the same port: they are
    named in the (first) removal's finding ("Deprecated in this file too: trt.NetworkDefinitionCreationFlag.EXPLICIT_BATCH
    (since TensorRT 10.0)"), each use a related location, not findings of their own.
    A folder named for a TensorRT release (`TRT-8-version/`, `CCLPlugin-TRT7/`, `TensorRT-8.6/`, `tensorrt7/`)
    holds code for that release: its files are judged against it (for a major alone its first release, `8.0`: code
    kept for TensorRT 8 is for every 8 release)
    unless a pin inside the folder (a requirement, `find_package(TensorRT ...)`) names another.
    A Python package of its own below the root (a directory with its own `setup.py`, `pyproject.toml` or
    `setup.cfg`, such as a tool shipped in the tree) is judged by the release its own files pin, and when they
    pin none, as code with no known version (not judged), not by the root's.
    A file or folder whose name marks its code deprecated (the word `deprecated`, `obsolete` or `archived` as a
    word of its own: `DeprecatedLayers/`, `MatrixMultiplyDeprecated/`, `plugin-V2-deprecated.py`, `obsolete/`) is
    code its project keeps for an older TensorRT whose release the name does not say: it is not judged against the
    tree's release, as compilers do not warn of deprecated uses inside code itself marked deprecated (javac inside
    `@Deprecated`, clang inside `[[deprecated]]`). Never silently: the run's summary line names each such path with
    the number of its files not judged, and `judge-deprecated-code = true` judges them. A pin or a folder named for
    a release inside the marked folder is judged as that release. A Python module whose string literal names such a
    path of the tree (relative to the module, to the root, or as its tail: `root / "05-Plugin" /
    "BasicExample-V2-deprecated"` in a test that builds and loads that sample) is code for it and is treated the same
    (the summary names the module, the path and the line); a string naming no path of the tree marks nothing. `legacy`, `old` and `archive` are no such marks
    (a compatibility layer still shipped, `run_old.py`, a serialization archive): their code is judged.

    ## Why it matters
    A removed API is an `AttributeError` on the first build with the new TensorRT; a deprecated one is the
    next upgrade's breakage. Seeing them with the version they go away in makes upgrades planned work.

    ## Example
    ```python
    engine = builder.build_engine(network, config)       # removed in TensorRT 10.0
    ```

    ## Fix
    Use the replacement the message names (`builder.build_serialized_network(network, config)`), or guard
    the call with a version check if old TensorRT versions must keep working. The replacement is one the
    targeted release has: `trt.IPluginV2Ext` in a project targeting 8.6 is told `IPluginV2DynamicExt`, not
    `IPluginV3` (10.0 on; the pack's `use_before`); and a replacement the targeted release removed in turn is
    followed to its own: `BuilderFlag.STRICT_TYPES` in a project targeting 11.1 is told a strongly typed network,
    since `BuilderFlag.OBEY_PRECISION_CONSTRAINTS`, its replacement in 10.x, was removed in 11.0.
    """

    code = "TRT610"
    reads = frozenset({"converters", "files", "marked_strings", "py_classes", "py_enqueues", "py_plugin_fields",
                       "py_reexports", "py_signatures", "qdp_defs", "torch_op_uses", "trt_api_uses", "unnamed_layers"})
    name = "deprecated-tensorrt-python-api"
    family = "python"
    severity = Severity.WARNING

    VALID = [
        {
            "files": {
                "build.py": _HEAD
                + "def build(builder, network, config):\n"
                "    if trt.__version__ < '10':\n"
                "        return builder.build_engine(network, config)\n"
                "    return builder.build_serialized_network(network, config)\n"
                "def plugin_layer(network, inputs, plugin):\n"
                "    return network.add_plugin_v2(inputs, plugin)\n"
                "def flags(config):\n"
                "    if not is_tensorrt_version_supported('10.0'):\n"
                "        config.set_flag(trt.BuilderFlag.STRICT_TYPES)\n"
            },
            "config": {"tensorrt-version": "10.0"},
        },
        {
            # the newer API tried first, the removed one as the fallback in the handler of an AttributeError
            "files": {
                "build.py": _HEAD
                + "def bindings(engine):\n"
                "    try:\n"
                "        return engine.num_io_tensors\n"
                "    except AttributeError:\n"
                "        return engine.num_bindings\n"
            },
            "config": {"tensorrt-version": "10.0"},
        },
        {
            # argparse's options named like a TensorRT attribute: parsed directly, or returned by a parse_args()
            # function of the script
            "files": {
                "tools/onnx2trt.py": _HEAD
                + "import argparse\n"
                "def parse_args():\n"
                "    parser = argparse.ArgumentParser()\n"
                "    parser.add_argument('--max_workspace_size', type=int)\n"
                "    args = parser.parse_args()\n"
                "    return args\n"
                "def main(build):\n"
                "    args = parse_args()\n"
                "    build(max_workspace_size=args.max_workspace_size)\n"
                "    opts = argparse.ArgumentParser().parse_args()\n"
                "    return opts.max_workspace_size\n"
            },
            "config": {"tensorrt-version": "10.0"},
        },
    ]
    VALID += [
        # the project's own members named like TensorRT APIs: a settings dataclass's field read through an annotated
        # class field, a parameter and a constructor call, a keyword argument of the project's own run(), and a
        # wrapper's own build_engine method called on self
        {
            "files": {
                "pkg/settings.py": "import dataclasses\n\n\n@dataclasses.dataclass\nclass LowerSettings:\n"
                "    max_workspace_size: int = 1 << 30\n",
                "pkg/lower.py": _HEAD
                + "from typing import Optional\n"
                "from .settings import LowerSettings\n"
                "class Lowerer:\n"
                "    settings: LowerSettings\n"
                "    def lower(self, interpreter):\n"
                "        return interpreter.run(max_workspace_size=self.settings.max_workspace_size)\n"
                "def workspace(s: Optional[LowerSettings]):\n"
                "    default = LowerSettings()\n"
                "    return s.max_workspace_size or default.max_workspace_size\n"
                "class EngineWrapper:\n"
                "    def __init__(self, path):\n"
                "        self.engine = self.build_engine(path)\n"
                "    def build_engine(self, path):\n"
                "        return open(path, 'rb').read()\n",
            },
            "config": {"tensorrt-version": "10.8"},
        },
    ]
    # the project's own Builder with its own build_engine, in pkg/builder.py, that pkg/__init__.py re-exports: named
    # through the package (from pkg import Builder, pkg.Builder(), an alias of the import) and through its module
    _OWN_BUILDER = {
        "pkg/__init__.py": "from .builder import Builder, BuilderConfig\nfrom .builder import Builder as TheBuilder\n",
        "pkg/builder.py": _HEAD
        + "class BuilderConfig:\n    pass\n"
        "class Builder:\n"
        "    def __init__(self):\n"
        "        self.trt_builder = trt.Builder(trt.Logger())\n"
        "    def build_engine(self, network, config):\n"
        "        return self.trt_builder.build_serialized_network(network, config)\n",
    }
    VALID += [
        {
            "files": {
                **_OWN_BUILDER,
                "tests/test_build.py": _HEAD
                + "import pkg\n"
                "from pkg import Builder, TheBuilder\n"
                "def test_from(network, config):\n"
                "    builder = Builder()\n"
                "    return builder.build_engine(network, config)\n"
                "def test_attr(network, config):\n"
                "    builder = pkg.Builder()\n"
                "    return builder.build_engine(network, config)\n"
                "def test_alias(network, config):\n"
                "    return TheBuilder().build_engine(network, config) or build(TheBuilder(), network, config)\n"
                "def build(builder: TheBuilder, network, config):\n"
                "    return builder.build_engine(network, config)\n",
                "examples/build.py": _HEAD
                + "from pkg.builder import Builder\n"
                "builder = Builder()\n"
                "engine = builder.build_engine(network, config)\n",
            },
            "config": {"tensorrt-version": "10.0"},
        },
    ]
    VALID += [
        # each side of a version dispatch moved into a helper: a method and a module function whose every reference
        # in the module is under a version test (directly, or from a helper that is itself so guarded) are
        # version-guarded as a whole
        {
            "files": {
                "runner.py": _HEAD
                + "def trt_version():\n"
                "    return trt.__version__\n"
                "class Runner:\n"
                "    def _count_pre_10(self):\n"
                "        return self.engine.num_bindings\n"
                "    def count(self):\n"
                "        if trt.__version__ < '10.0':\n"
                "            return self._count_pre_10()\n"
                "        return self.engine.num_io_tensors\n"
                "def _index_old(engine):\n"
                "    return engine.get_binding_index('x')\n"
                "def _index_via(engine):\n"
                "    return _index_old(engine)\n"
                "def index(engine):\n"
                "    if trt_version() < '10.0':\n"
                "        return _index_via(engine)\n"
                "    return 0\n"
            },
            "config": {"tensorrt-version": "10.0"},
        },
        # a script's options parsed at module level: argparse's, read at the top level or in a function
        {
            "files": {
                "optimize.py": _HEAD
                + "from argparse import ArgumentParser\n"
                "parser = ArgumentParser()\n"
                "parser.add_argument('--max_workspace_size', type=int, default=1 << 28)\n"
                "args = parser.parse_args()\n"
                "print(args.max_workspace_size)\n"
                "def build(convert):\n"
                "    return convert(max_workspace_size=args.max_workspace_size)\n"
            },
            "config": {"tensorrt-version": "10.0"},
        },
    ]
    VALID += [
        # code its name marks deprecated is kept for an older TensorRT: a folder (DeprecatedLayers/, with a sample named
        # for a deprecated layer inside) and a file (plugin-V2-deprecated.py beside the V3 sample) are not judged
        # against the tree's 10.0; the run's summary names them (judge-deprecated-code = true judges them)
        {
            "files": {
                "requirements.txt": "tensorrt==10.0.1\n",
                "samples/91-OldStuff/DeprecatedLayers/RNNv2/main.py": _HEAD
                + "def build(builder, network, config, x):\n"
                "    config.max_workspace_size = 1 << 30\n"
                "    layer = network.add_rnn_v2(x, 1, 8, 4, trt.RNNOperation.LSTM)\n"
                "    return builder.build_engine(network, config)\n",
                "samples/Plugin/add_scalar-V2-deprecated.py": _HEAD
                + "class AddScalar(trt.IPluginV2DynamicExt):\n    pass\n",
            },
        },
    ]
    VALID += [
        # no version set or found: nothing to judge against (the run's summary line says so)
        {"files": {"build.py": _HEAD + "def build(builder, network, config):\n    config.max_workspace_size = 1 << 30\n"}},
    ]
    # a test of a sample its folder's name marks deprecated: it names the folder to build and load that sample
    _V2_SAMPLE = {
        "requirements.txt": "tensorrt==10.8.0\n",
        "samples/Plugin-V2-deprecated/main.py": _HEAD + "def add(network, inputs, plugin):\n    return network.add_plugin_v2(inputs, plugin)\n",
    }
    _V2_TEST = (_HEAD + "from pathlib import Path\nROOT = Path(__file__).parent.parent\n"
                "PLUGIN_DIR = ROOT / \"samples\" / \"{folder}\"\n\n\n"
                "def test_v2(network, inputs, plugin):\n    network.add_plugin_v2(inputs, plugin)\n")
    VALID += [
        {"files": {**_V2_SAMPLE, "tests/test_pluginv2.py": _V2_TEST.format(folder="Plugin-V2-deprecated")}},
    ]
    INVALID = [
        {
            # the string names no path of the tree: the test is judged
            "files": {**_V2_SAMPLE, "tests/test_pluginv2.py": _V2_TEST.format(folder="Plugin-V3-deprecated")},
            "expect": [("tests/test_pluginv2.py", 8, "add_plugin_v2 is deprecated since TensorRT 10.8 (the project targets 10.8")],
        },
        {
            # judge-deprecated-code = true: the test of the deprecated sample is judged like the rest
            "files": {**_V2_SAMPLE, "tests/test_pluginv2.py": _V2_TEST.format(folder="Plugin-V2-deprecated")},
            "config": {"judge-deprecated-code": True},
            "expect": [("samples/Plugin-V2-deprecated/main.py", 3, "add_plugin_v2 is deprecated since TensorRT 10.8"),
                       ("tests/test_pluginv2.py", 8, "add_plugin_v2 is deprecated since TensorRT 10.8")],
        },
        {
            "files": {
                "build.py": _HEAD
                + "def build(builder, network, config):\n"
                "    config.set_flag(trt.BuilderFlag.STRICT_TYPES)\n"
                "    return builder.build_engine(network, config)\n"
                "def plugin_layer(network, inputs, plugin):\n"
                "    return network.add_plugin_v2(inputs, plugin)\n"
            },
            "config": {"tensorrt-version": "10.8"},
            "expect": [
                # both removed in 10.0: one finding, build_engine named and its related location
                ("build.py", 3, "trt.BuilderFlag.STRICT_TYPES was removed in TensorRT 10.0 (deprecated in 8.2; the project targets 10.8)"
                 "; use BuilderFlag.OBEY_PRECISION_CONSTRAINTS (or a strongly typed network). Also removed in TensorRT 10.0 in "
                 "this file: build_engine (related locations). Deprecated in this file too: add_plugin_v2 (since "
                 "TensorRT 10.8) (related locations)"),
            ],
        },
        {
            # at 11.1 the replacement the pack names for STRICT_TYPES (OBEY_PRECISION_CONSTRAINTS) is gone too: the
            # advice is the one that release has, and says why
            "files": {"build.py": _HEAD + "def build(config):\n    config.set_flag(trt.BuilderFlag.STRICT_TYPES)\n"},
            "config": {"tensorrt-version": "11.1"},
            "expect": [("build.py", 3, "trt.BuilderFlag.STRICT_TYPES was removed in TensorRT 10.0 (deprecated in 8.2; the "
                        "project targets 11.1); use a strongly typed network (BuilderFlag.OBEY_PRECISION_CONSTRAINTS, the "
                        "replacement before 11.0, was removed in TensorRT 11.0)")],
        },
        {
            # a file with no removed API: its deprecated ones are a finding of their own
            "files": {"build.py": _HEAD + "def plugin_layer(network, inputs, plugin):\n    return network.add_plugin_v2(inputs, plugin)\n"},
            "config": {"tensorrt-version": "10.8"},
            "expect": [("build.py", 3, "add_plugin_v2 is deprecated since TensorRT 10.8")],
        },
        {
            # no tensorrt-version: requirements.txt pins TensorRT 10.3; one finding for the two uses in the file
            "files": {
                "requirements.txt": "numpy\ntensorrt==10.3.0\n",
                "build.py": _HEAD
                + "def build(builder, network, config):\n"
                "    config.max_workspace_size = 1 << 30\n"
                "    config.max_workspace_size = 1 << 31\n",
            },
            "expect": [("build.py", 3, "max_workspace_size was removed in TensorRT 10.0 (deprecated in 8.4; the project targets 10.3, inferred from requirements.txt:2) (and 1 more use in this file)")],
        },
        {
            # the root pins 10.3, but tools/polish is a package of its own that pins no TensorRT: it is not judged;
            # the root's own file is an error against 10.3
            "files": {
                "requirements.txt": "tensorrt==10.3.0\n",
                "build.py": _HEAD + "def build(builder, network):\n    return builder.build_engine(network, None)\n",
                "tools/polish/setup.py": "from setuptools import setup\nsetup(name='polish')\n",
                "tools/polish/polish/run.py": _HEAD + "def build(builder, network):\n    return builder.build_engine(network, None)\n",
            },
            "expect": [
                ("build.py", 3, "build_engine was removed in TensorRT 10.0 (deprecated in 8.0; the project targets 10.3, inferred from requirements.txt:1)"),
            ],
        },
        {
            # a project class that declares max_workspace_size and build_engine does not hide TensorRT's: a receiver
            # typed as a TensorRT class, one typed by an alias of a TensorRT class (no class of the project), an
            # untyped one, and a field of the project's class that holds a trt.Builder are judged by the name; the
            # project's own uses (the settings field, self.build_engine) are not reported
            "files": {
                "pkg/types.py": _HEAD + "TRTConfig = trt.IBuilderConfig\n",
                "pkg/build.py": _HEAD
                + "from .types import TRTConfig\n"
                "class Settings:\n"
                "    def __init__(self):\n"
                "        self.max_workspace_size = 1 << 30\n"
                "class Wrapper:\n"
                "    def __init__(self, logger, settings: Settings):\n"
                "        self.builder = trt.Builder(logger)\n"
                "        self.settings = settings\n"
                "    def configure(self, config: trt.IBuilderConfig, other: TRTConfig, third):\n"
                "        config.max_workspace_size = self.settings.max_workspace_size\n"
                "        other.max_workspace_size = third.max_workspace_size = 0\n"
                "        return self.build_engine(config)\n"
                "    def build_engine(self, config):\n"
                "        return self.builder.build_engine(self.network, config)\n",
            },
            "config": {"tensorrt-version": "10.8"},
            "expect": [
                ("pkg/build.py", 11, "max_workspace_size was removed in TensorRT 10.0 (deprecated in 8.4; the project targets 10.8) (and 2 more uses in this file)"
                 "; use config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, size). Also removed in TensorRT 10.0 in "
                 "this file: build_engine (related locations)"),
            ],
        },
        {
            # TensorRT's Builder next to the project's re-exported one (trt.Builder, tensorrt.Builder), a name the
            # package does not bind (pkg.OtherBuilder), a package that re-exports TensorRT's own Builder (trtpkg), and
            # one that binds the name two ways (a try: the import, else TensorRT's) are judged by the name
            "files": {
                **_OWN_BUILDER,
                "trtpkg/__init__.py": "from tensorrt import Builder\n",
                "trypkg/__init__.py": "try:\n    from .fast import Builder\nexcept ImportError:\n    from tensorrt import Builder\n",
                "trypkg/fast.py": "class Builder:\n    def build_engine(self, network, config):\n        return None\n",
                "a.py": _HEAD + "import pkg\nbuilder = trt.Builder(trt.Logger())\nengine = builder.build_engine(network, config)\n",
                "b.py": "import tensorrt\nimport pkg\nbuilder = tensorrt.Builder(tensorrt.Logger())\n"
                "engine = builder.build_engine(network, config)\n",
                "c.py": _HEAD + "import pkg\nbuilder = pkg.OtherBuilder()\nengine = builder.build_engine(network, config)\n",
                "d.py": _HEAD + "from trtpkg import Builder\nengine = Builder(trt.Logger()).build_engine(network, config)\n",
                "e.py": _HEAD + "from trypkg import Builder\nengine = Builder().build_engine(network, config)\n",
            },
            "config": {"tensorrt-version": "10.0"},
            "expect": [
                ("a.py", 4, "build_engine was removed in TensorRT 10.0"),
                ("b.py", 4, "build_engine was removed in TensorRT 10.0"),
                ("c.py", 4, "build_engine was removed in TensorRT 10.0"),
                ("d.py", 3, "build_engine was removed in TensorRT 10.0"),
                ("e.py", 3, "build_engine was removed in TensorRT 10.0"),
            ],
        },
        {
            # a helper also called outside the version test (or named in a string) is not guarded by its callers, nor
            # one called only in a try with a bare except (error handling, not a version fallback); a module-level
            # name some function rebinds (global) is no parsed-options object
            "files": {
                "runner.py": _HEAD
                + "import argparse\n"
                "args = argparse.ArgumentParser().parse_args()\n"
                "class Runner:\n"
                "    def _count_pre_10(self):\n"
                "        return self.engine.num_bindings\n"
                "    def count(self):\n"
                "        if trt.__version__ < '10.0':\n"
                "            return self._count_pre_10()\n"
                "        return self._count_pre_10() + 1\n"
                "def _index_old(engine):\n"
                "    return engine.get_binding_index('x')\n"
                "def index(engine):\n"
                "    if trt.__version__ < '10.0':\n"
                "        return _index_old(engine)\n"
                "    return getattr(engine, '_index_old')\n"
                "def _load(registry):\n"
                "    return registry.plugin_creator_list\n"
                "try:\n"
                "    _load(trt.get_plugin_registry())\n"
                "except:\n"
                "    pass\n"
                "def configure(config):\n"
                "    global args\n"
                "    args = config\n"
                "    return args.max_workspace_size\n"
            },
            "config": {"tensorrt-version": "10.0"},
            "expect": [
                # (all three removed in 10.0: one finding, the other two named and related locations)
                ("runner.py", 6, "num_bindings was removed in TensorRT 10.0 (deprecated in 8.5; the project targets 10.0); "
                 "use num_io_tensors. Also removed in TensorRT 10.0 in this file: get_binding_index, max_workspace_size "
                 "(related locations). Deprecated in this file too: plugin_creator_list (since TensorRT 10.0)"),
            ],
        },
        {
            # a folder named for a release holds code for that release: tool/TRT-8-version is judged as 8.0 (a major
            # alone: its first release; build_engine is deprecated there, num_bindings (8.5) and plugin_creator_list
            # (10.0) not yet), unless a pin inside it says otherwise (old/Plugin-TRT7 pins 10.0); the root's own copy
            # is judged against the root's 10.0
            "files": {
                "requirements.txt": "tensorrt==10.0.1\n",
                "tool/run.py": _HEAD + "names = trt.get_plugin_registry().plugin_creator_list\nn = engine.num_bindings\n",
                "tool/TRT-8-version/run.py": _HEAD
                + "names = trt.get_plugin_registry().plugin_creator_list\nn = engine.num_bindings\n"
                "e = builder.build_engine(network, config)\n",
                "old/Plugin-TRT7/requirements.txt": "tensorrt==10.0.1\n",
                "old/Plugin-TRT7/a.py": _HEAD + "n = engine.num_bindings\n",
            },
            "expect": [
                ("tool/run.py", 3, "num_bindings was removed in TensorRT 10.0 (deprecated in 8.5; the project targets "
                 "10.0, inferred from requirements.txt:1); use num_io_tensors. Deprecated in this file too: "
                 "plugin_creator_list (since TensorRT 10.0)"),
                ("tool/TRT-8-version/run.py", 4, "build_engine is deprecated since TensorRT 8.0, removed in 10.0 (the project targets 8.0, inferred from the folder name tool/TRT-8-version)"),
                ("old/Plugin-TRT7/a.py", 2, "num_bindings was removed in TensorRT 10.0 (deprecated in 8.5; the project targets 10.0, inferred from old/Plugin-TRT7/requirements.txt:1)"),
            ],
        },
        {
            # names that mark nothing: legacy/ (a compatibility layer still shipped), run_old.py, a serialization
            # archive/, a name holding "deprecated" inside a word; and a folder named for a release inside a
            # deprecated one is judged as that release (TRT-8: 8.0, where build_engine is deprecated)
            "files": {
                "requirements.txt": "tensorrt==10.0.1\n",
                "legacy/build.py": _HEAD + "e = builder.build_engine(network, config)\n",
                "tools/run_old.py": _HEAD + "e = builder.build_engine(network, config)\n",
                "archive/build.py": _HEAD + "e = builder.build_engine(network, config)\n",
                "undeprecatedfoo/build.py": _HEAD + "e = builder.build_engine(network, config)\n",
                "deprecated/TRT-8/build.py": _HEAD + "e = builder.build_engine(network, config)\n",
            },
            "expect": [
                ("archive/build.py", 2, "build_engine was removed in TensorRT 10.0"),
                ("deprecated/TRT-8/build.py", 2, "build_engine is deprecated since TensorRT 8.0, removed in 10.0 (the project targets 8.0, inferred from the folder name deprecated/TRT-8)"),
                ("legacy/build.py", 2, "build_engine was removed in TensorRT 10.0"),
                ("tools/run_old.py", 2, "build_engine was removed in TensorRT 10.0"),
                ("undeprecatedfoo/build.py", 2, "build_engine was removed in TensorRT 10.0"),
            ],
        },
        {
            # judge-deprecated-code = true: code its name marks deprecated is judged like the rest
            "files": {
                "requirements.txt": "tensorrt==10.0.1\n",
                "samples/DeprecatedLayers/RNN/main.py": _HEAD + "layer = network.add_rnn_v2(x, 1, 8, 4, op)\n",
                "samples/Plugin/add_scalar-V2-deprecated.py": _HEAD + "class AddScalar(trt.IPluginV2DynamicExt):\n    pass\n",
            },
            "config": {"judge-deprecated-code": True},
            "expect": [
                ("samples/DeprecatedLayers/RNN/main.py", 2, "add_rnn_v2 was removed in TensorRT 10.0"),
                ("samples/Plugin/add_scalar-V2-deprecated.py", 2, "trt.IPluginV2DynamicExt is deprecated since TensorRT 10.0"),
            ],
        },
        {
            # "10.x" is the newest 10 release (as for TRT207): add_plugin_v2, deprecated in 10.8, is reported
            "files": {"build.py": _HEAD + "def plugin_layer(network, inputs, plugin):\n    return network.add_plugin_v2(inputs, plugin)\n"},
            "config": {"tensorrt-version": "10.x"},
            "expect": [("build.py", 3, "add_plugin_v2 is deprecated since TensorRT 10.8")],
        },
        {
            # the advice fits the target: TensorRT 8.6 deprecates IPluginV2Ext but has no IPluginV3 (10.0 on)
            "files": {"plugin.py": _HEAD + "class AddScalar(trt.IPluginV2Ext):\n    pass\n"},
            "config": {"tensorrt-version": "8.6"},
            "expect": [("plugin.py", 2, "trt.IPluginV2Ext is deprecated since TensorRT 8.5 (the project targets 8.6); use "
                        "IPluginV2DynamicExt, as the headers of releases before 10.0 advise (IPluginV3 arrives in TensorRT 10.0)")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        table = index.packs.tensorrt_python_api
        own = _ProjectMembers(index.py_classes, index.py_reexports)
        # one finding per (API, file): the first use, the others as related locations
        uses: dict[tuple, list] = {}
        for u in index.trt_api_uses:
            if (u.name in table and not u.guarded and not own.declares(u.receiver, u.name)
                    and not index.deprecated_mark(u.span.path)):  # (kept for an older TensorRT: the summary says)
                uses.setdefault((u.span.path, u.name), []).append(u)
        # then one finding per (file, verdict): the APIs a file uses that the same release removed (or deprecated)
        # all say the same thing about the file (it is code for an older TensorRT): the first one is the finding,
        # the others its related locations, named in the message
        verdicts: dict[tuple, list] = {}
        for (path, name), group in uses.items():
            known = index.tensorrt_target(path)  # a Python package of its own goes by its own metadata
            target = known.version
            if not target:
                continue  # nothing to judge against: the run's summary says no version is known
            targets = f"the project targets {target}" + (f", {known.why()}" if known.source == "inferred" else "")
            group.sort(key=lambda u: (u.span.line, u.span.col))
            u, rest = group[0], group[1:]
            e = table[name]
            removed, deprecated = e.get("removed"), e.get("deprecated")
            shown = f"trt.{u.name}" if e["match"] == "qualified" else u.name
            advice = advice_at(e.get("use"), e.get("use_before") or {}, target)  # what the target's release has
            advice = _advice_still_there(table, advice, target)
            use = f"; use {advice}" if advice else ""
            more = (f" (and {len(rest)} more use{'s' if len(rest) > 1 else ''} in this file)" if rest else "")
            related = [Related(r.span, f"{shown} is also used here") for r in rest]
            if removed and version_at_least(target, removed):
                dep = f"deprecated in {deprecated}; " if deprecated else ""
                verdict = f"removed in TensorRT {removed}"
                msg = f"{shown} was {verdict} ({dep}{targets}){more}{use}"
                sev = Severity.ERROR
            elif deprecated and version_at_least(target, deprecated):
                gone = f", removed in {removed}" if removed else ""
                verdict = f"deprecated since TensorRT {deprecated}"
                msg = f"{shown} is {verdict}{gone} ({targets}){more}{use}"
                sev = Severity.WARNING
            else:
                continue
            verdicts.setdefault((path, sev, verdict), []).append((u, shown, msg, use, related))
        # a file that uses an API the target removed is code for an older TensorRT: the APIs it uses that the target
        # only deprecated are part of the same port, named in the (first) removal's finding, not findings of their own
        first_removal: dict[str, tuple] = {}
        for key in sorted((k for k in verdicts if k[1] is Severity.ERROR),
                          key=lambda k: min((a[0].span.line, a[0].span.col) for a in verdicts[k])):
            first_removal.setdefault(key[0], key)
        for (path, sev, verdict), apis in verdicts.items():
            if sev is not Severity.ERROR and path in first_removal:
                continue
            apis.sort(key=lambda a: (a[0].span.line, a[0].span.col))
            (u, _shown, msg, _use, related), others = apis[0], apis[1:]
            if others:
                related = list(related)
                for o, o_shown, _m, o_use, o_related in others:
                    related.append(Related(o.span, f"{o_shown} was {verdict}{o_use}" if sev is Severity.ERROR
                                           else f"{o_shown} is {verdict}{o_use}"))
                    related.extend(o_related)
                names = ", ".join(a[1] for a in others)
                msg += f". Also {verdict} in this file: {names} (related locations)"
            if first_removal.get(path) == (path, sev, verdict):
                deprecated = sorted(((a, v) for (p2, s2, v), group in verdicts.items()
                                     if p2 == path and s2 is not Severity.ERROR for a in group),
                                    key=lambda av: (av[0][0].span.line, av[0][0].span.col))
                if deprecated:
                    related = list(related)
                    for (o, o_shown, _m, o_use, o_related), v in deprecated:
                        related.append(Related(o.span, f"{o_shown} is {v}{o_use}"))
                        related.extend(o_related)
                    names = ", ".join(f"{a[1]} ({v.replace('deprecated ', '')})" for a, v in deprecated)
                    msg += f". Deprecated in this file too: {names} (related locations)"
            yield self.diag(u.span, msg, severity=sev, symbol=u.name, related=related)


class _ProjectMembers:
    """The project's classes that declare a pack API name themselves (``PyClassDecl``), looked up by the class a
    use's receiver has (``TrtApiUse.receiver``). A class is qualified by its file's path ("py.pkg.settings.Settings")
    and a receiver by the import that named it ("pkg.settings.Settings", or relative to the importing file's
    path): they are the same class when one is the other's dotted suffix. A receiver named through a package
    ("tensorrt_llm.Builder") is followed through what the package's ``__init__.py`` imports under that name
    (``PyReexport``: "tensorrt_llm.builder.Builder"), as Python resolves it; when several packages of the tree end
    so, each one's import has to lead to such a class."""

    def __init__(self, classes, reexports=()) -> None:
        self.by_name: dict[str, list] = {}
        for c in classes:
            self.by_name.setdefault(c.name.rsplit(".", 1)[-1], []).append(c)
        self.reexports: dict[str, list] = {}
        for r in reexports:
            self.reexports.setdefault(r.name, []).append(r)

    def declares(self, receiver, name: str, hops: int = 4) -> bool:
        if not receiver or receiver == "tensorrt" or receiver.startswith("tensorrt."):
            return False
        if receiver == "argparse.Namespace":
            return True  # the command-line options the project's own parser declares (add_argument)
        for c in self.by_name.get(receiver.rsplit(".", 1)[-1], ()):
            if name in c.members and (
                c.name == receiver or c.name.endswith("." + receiver) or receiver.endswith("." + c.name)
            ):
                return True
        targets = self._through_package(receiver) if hops else ()
        return bool(targets) and all(self.declares(t, name, hops - 1) for t in targets)

    def _through_package(self, receiver: str) -> tuple:
        """What ``<package>.<name>`` is by the imports of the package's ``__init__.py`` (the packages of the tree
        whose path ends with ``<package>``; the one it names exactly, if there is one)."""
        package, _, short = receiver.rpartition(".")
        if not package:
            return ()
        found = [r for r in self.reexports.get(short, ()) if r.module == package or r.module.endswith("." + package)]
        exact = [r for r in found if r.module == package]
        return tuple(sorted({r.target for r in exact or found} - {receiver}))


def _advice_still_there(table: dict, advice, target: str, hops: int = 3):
    """The advice, unless it names an API of the table that the target release removed too (STRICT_TYPES's
    replacement OBEY_PRECISION_CONSTRAINTS is gone in 11.0): then that API's own advice at the target, saying why."""
    while advice and hops:
        hops -= 1
        head = re.match(r"(?:trt\.)?([A-Za-z_][\w.]*)", advice)
        e = table.get(head.group(1)) if head else None
        removed = e.get("removed") if e else None
        if not removed or not version_at_least(target, removed):
            return advice
        nxt = advice_at(e.get("use"), e.get("use_before") or {}, target)
        if not nxt:
            return advice
        advice = f"{nxt} ({head.group(1)}, the replacement before {removed}, was removed in TensorRT {removed})"
    return advice
