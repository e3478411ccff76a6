"""Build-script frontend (text): the compiler command lines of a shell script (``build.sh`` calling ``nvcc``,
``g++``, ``clang++`` directly). The script is never run. Read: simple assignments (``NAME=value``, ``export
NAME=value``), ``$NAME``/``${NAME}`` references to them (a word holding another reference, a command
substitution or a glob is left out), and, on each line whose command is a C++/CUDA compiler, its source files and
its ``-I``/``-isystem``/``-D`` flags (joined or as the next word). A backslash-newline continues a line. Never
raises on a file's content.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from . import continued_lines

COMPILERS = re.compile(r"(?:^|/)(nvcc|g\+\+|gcc|clang\+\+|clang|c\+\+|cc)(?:-[\d.]+)?$")
UNIT_EXT = (".c", ".cc", ".cpp", ".cxx", ".c++", ".cu")
_ASSIGN = re.compile(r"^(?:export\s+|local\s+|readonly\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
MAX_TEXT = 1 << 20


@dataclass
class ScriptFacts:
    sources: list = field(default_factory=list)  # (path as written, line)
    include_dirs: list = field(default_factory=list)
    defines: list = field(default_factory=list)
    commands: int = 0  # compiler command lines read


def _expand(word: str, vars: dict):
    if "$(" in word or "`" in word:
        return None

    def sub(m):
        v = vars.get(m.group(1) or m.group(2))
        if v is None:
            raise KeyError
        return v

    try:
        return _REF.sub(sub, word)
    except KeyError:
        return None


def read_script(text: str) -> ScriptFacts:
    facts = ScriptFacts()
    if len(text) > MAX_TEXT:
        return facts
    vars: dict[str, str] = {}
    seen: set = set()
    for n, line in continued_lines(text):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        m = _ASSIGN.match(s)
        if m and " " not in m.group(2).strip().strip("'\""):
            v = _expand(m.group(2).strip().strip("'\""), vars)
            if v is not None:
                vars[m.group(1)] = v
            continue
        try:
            words = shlex.split(s, comments=True)
        except ValueError:
            continue
        # the command may follow `sudo`, `time`, an env assignment or `&&`/`;` chains: look at each word
        for i, w in enumerate(words):
            cmd = _expand(w, vars)
            if cmd is None or not COMPILERS.search(cmd):
                continue
            facts.commands += 1
            k = i + 1
            while k < len(words) and words[k] not in ("&&", "||", ";", "|"):
                a = _expand(words[k], vars)
                k += 1
                if a is None or "*" in a:
                    continue
                for flag, kind in (("-isystem", "inc"), ("-I", "inc"), ("-D", "def")):
                    if a.startswith(flag):
                        val = a[len(flag):]
                        if not val and k < len(words):
                            val = _expand(words[k], vars) or ""
                            k += 1
                        if val:
                            (facts.include_dirs if kind == "inc" else facts.defines).append(val)
                        break
                else:
                    if not a.startswith("-") and a.lower().endswith(UNIT_EXT) and a not in seen:
                        seen.add(a)
                        facts.sources.append((a[2:] if a.startswith("./") else a, n))
            break
    facts.include_dirs = list(dict.fromkeys(facts.include_dirs))
    facts.defines = list(dict.fromkeys(facts.defines))
    return facts
