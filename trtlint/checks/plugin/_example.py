"""Building blocks for the interface and lifecycle rules' example projects (data, not checks)."""

from __future__ import annotations

V3_BASES = "public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime"


def plugin_class(body: str, bases: str = V3_BASES, name: str = "FooPlugin") -> str:
    """A plugin class whose members are ``body`` (written from line 8 on)."""
    return f"""#include <NvInferRuntime.h>
#include <string>
#include <vector>
using namespace nvinfer1;
class {name} : {bases}
{{
public:
{body}
}};
"""
