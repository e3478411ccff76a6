"""Names the Python frontend's cheap tests share with its libcst extractors, in a module that does not import
libcst: the text pre-filter and the libcst skip test (:mod:`.fast`) and the extractors (:mod:`.values`,
:mod:`.onnx_emit`, :mod:`.torchtrt`) read them from here, so a worker that extracts only files without libcst
facts never imports libcst (~0.3 s per process)."""

from __future__ import annotations

import re
from functools import lru_cache

# TensorRT Python API calls and classes the main extractor records (onnx_emit)
CREATOR_METHODS = {"get_creator", "get_plugin_creator"}
API_METHODS = {
    "add_plugin_v3": "add_plugin_v3",
    "add_plugin_v2": "add_plugin_v2",
    "add_plugin_ext": "add_plugin_ext",
    "add_plugin": "add_plugin",
    "create_plugin": "create_plugin",
}
TRT_CLASSES = {"PluginField", "PluginFieldCollection"}

# The Python frontend's cheap text pre-filter (fast.prefilter): a file matching none of these, nor KEYWORDS, nor
# the direct-route builders' names, is never parsed.
BASE_KEYWORDS = (
    r"Opset",
    r"\.op\s*\(",
    r"make_node",
    r"get_creator",
    r"get_plugin_creator",
    r"PluginField",
    r"add_plugin",
    r"create_plugin",
    r"get_plugin_registry",
    r"plugin_creator_list",
    r"onnx_graphsurgeon",
    r"\bNode\s*\(",  # gs.Node(...) (kept by the def filter of the libcst parse)
    r"\.layer\s*\(",  # graph.layer(...) / self.layer(...)
    r"IPluginCreator",
    r"plugin_version",
    r"\.register\s*\(",
)
# Extra markers for the Python frontend's cheap text pre-filter (a file matching none is never parsed).
KEYWORDS = (
    r"_converter\b",
    r"tensorrt(?:_bindings)?\.plugin",
    r"generate_plugin",
    r"custom_op",
    r"register_fake",
    r"impl_abstract",
    r"library\.(?:define|impl)\s*\(",
    r"\.(?:impl|autotune|aot_impl)\s*\(",
    r"capability_validator",
    r"def\s+\w*validator\s*\(",
    r"def\s+enqueue\s*\(",
    r"\b(?:net|network)\s*\.\s*add_\w+\s*\(",
)


def prefilter_keywords() -> tuple[str, ...]:
    """:data:`KEYWORDS` plus the TensorRT Python API names of the deprecation pack."""
    attrs, quals = api_names()
    out = list(KEYWORDS)
    if attrs:
        out.append(r"\.(?:" + "|".join(sorted(map(re.escape, attrs))) + r")\b")
    if quals:
        out.append(r"\b(?:" + "|".join(sorted(map(re.escape, quals))) + r")\b")
    return tuple(out)


def module_name(rel: str) -> str:
    """Dotted module name for a project path (``py/torch_tensorrt/a/b.py`` -> ``py.torch_tensorrt.a.b``)."""
    p = rel[:-3] if rel.endswith(".py") else rel
    parts = [x for x in p.split("/") if x]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def relative_base(rel: str, level: int) -> list[str]:
    """The package a relative import of ``level`` dots in the project file ``rel`` names, as components: one dot
    is the file's own package, which for a package's ``__init__.py`` is the package itself
    (``pkg/__init__.py``: ``from .builder import`` -> ``pkg.builder``; ``pkg/mod.py``: the same)."""
    mod = module_name(rel)
    parts = mod.split(".") if mod else []
    up = level - 1 if rel.rsplit("/", 1)[-1] == "__init__.py" else level
    return parts[: max(0, len(parts) - up)]


REGISTRARS = {"dynamo_tensorrt_converter", "tensorrt_converter"}
QDP_KINDS = {"register", "impl", "autotune", "aot_impl"}
QDP_MODULES = ("tensorrt.plugin", "tensorrt_bindings.plugin")
TTRT_PLUGINS = "torch_tensorrt.dynamo.conversion.plugins"
FAKE_QUALS = {
    "torch.library.register_fake",
    "torch.library.impl_abstract",
    "torch._library.register_fake",
}
DEFINE_QUALS = {"torch.library.custom_op", "torch._library.custom_ops.custom_op", "torch.library.define"}


@lru_cache(maxsize=1)
def api_names() -> tuple[frozenset, frozenset]:
    """(attr names, qualified names) listed in the shipped ``tensorrt_python.yaml`` pack."""
    try:
        import yaml

        from trtlint.config.packs import shipped_dir

        data = yaml.safe_load((shipped_dir() / "tensorrt_python.yaml").read_text(encoding="utf-8")) or {}
        entries = data.get("tensorrt_python_api") or []
    except Exception:  # the pack is validated when packs load; here a broken one only means no facts
        entries = []
    attrs = frozenset(e["name"] for e in entries if isinstance(e, dict) and e.get("match") == "attr")
    quals = frozenset(e["name"] for e in entries if isinstance(e, dict) and e.get("match") == "qualified")
    return attrs, quals


# the callees that return a module named by their literal first argument: importlib's, Python's and lazy loaders'
# (Polygraphy's ``mod.lazy_import("onnx_graphsurgeon")``): ``gs = mod.lazy_import("onnx_graphsurgeon")`` binds ``gs``
# as ``import onnx_graphsurgeon as gs`` would (values.lazy_import_of, fast.libcst_facts_possible)
LAZY_IMPORTERS = frozenset({"import_module", "__import__", "lazy_import"})
