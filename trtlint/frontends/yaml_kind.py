"""Kind ``yaml``: TensorRT OSS plugin specs (``*_PluginConfig.yaml``) go to :mod:`.plugin_spec`, every other
YAML file to the test-list frontend :mod:`.testlists`."""

from __future__ import annotations

from trtlint.base.facts import FileFacts
from . import ExtractContext, SourceFile, plugin_spec, testlists

KIND_NAMES = ("yaml",)
VERSION = "1"


def extract(src: SourceFile, ctx: ExtractContext) -> FileFacts:
    if plugin_spec.is_plugin_spec(src.rel):
        return plugin_spec.extract(src, ctx)
    return testlists.extract(src, ctx)
