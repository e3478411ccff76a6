"""C++-looking files that are code-generator templates, not C++ (read from the text alone, before any parse).

A plugin generator ships its output as text with placeholders (Python's ``string.Template``: ``$plugin_name``,
``${plugin_name_uppercase}``) that it substitutes before anything compiles it::

    #include "$plugin_nameIPluginV2DynamicExt.h"
    class $plugin_name : public nvinfer1::IPluginV2DynamicExt {
        $plugin_private_attributes
    };

Parsing such a file as C++ gives parse errors (TRT001 warnings nobody can act on) and a unit "partly analysed"
for a missing ``$plugin_nameX.h``. :func:`placeholder_line` says a file is one: outside comments and string
literals, a braced placeholder ``${name}`` (never C++), a ``#include`` whose name holds a ``$name``, a line that is
a lone ``$name`` (a substituted block), or two different ``$name`` identifiers (clang accepts ``$`` in identifiers,
real code does not use it). The C++ frontend then does not parse it and says so once (a TRT001 note, info).
"""

from __future__ import annotations

import re
from typing import Optional

__all__ = ["TEMPLATE_NOTE", "placeholder_line"]

TEMPLATE_NOTE = ("a code-generator template, not C++ (`$name` placeholders where C++ has names: substituted by the "
                 "generator before anything compiles it)")

_COMMENT_OR_STRING = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_BRACED = re.compile(r"\$\{[A-Za-z_]\w*\}")
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*[<\"][^>\"\n]*\$[{A-Za-z_]", re.M)
_LONE = re.compile(r"^[ \t]*\$[A-Za-z_]\w*[ \t]*$", re.M)
_IDENT = re.compile(r"(?<![\w$])\$([A-Za-z_]\w*)")


def _blank(m: re.Match) -> str:
    return "\n" * m.group(0).count("\n")  # keep the line numbers


def placeholder_line(text: str) -> Optional[int]:
    """The line of the first template placeholder that makes ``text`` a template (module docstring), or None."""
    if "$" not in text:
        return None
    no_comments = _COMMENT.sub(_blank, text)  # (both keep every line where it is)
    code = _COMMENT_OR_STRING.sub(lambda m: _blank(m) if m.group(0)[0] == "/" else '""', text)
    lines = [no_comments.count("\n", 0, m.start()) + 1 for m in _INCLUDE.finditer(no_comments)][:1]
    for pat in (_BRACED, _LONE):
        lines += [code.count("\n", 0, m.start()) + 1 for m in pat.finditer(code)][:1]
    idents: dict[str, int] = {}
    for m in _IDENT.finditer(code):
        idents.setdefault(m.group(1), m.start())
    if len(idents) >= 2:
        lines.append(code.count("\n", 0, min(idents.values())) + 1)
    return min(lines) if lines else None
