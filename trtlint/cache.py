"""Per-file fact cache in ``.trtlint_cache/``.

An entry is keyed by the file's content digest, its frontend's VERSION, the facts schema version and the
extraction settings. A C++ entry also records the digests of the project headers the translation unit
included; it is used only while every one of them is unchanged (editing a header re-extracts its includers).
The directory carries its own ``.gitignore`` (``*``) so it never shows up as a change in the project.
Writes are atomic (temp file + rename); a corrupt entry is a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Optional

from .facts import FACTS_SCHEMA_VERSION, FileFacts, loads_facts, to_json
from .frontends import ExtractContext, SourceFile

CACHE_DIR = ".trtlint_cache"


def context_key(ctx: ExtractContext) -> str:
    data = {k: (list(v) if isinstance(v, tuple) else v) for k, v in ctx.__dict__.items() if k != "root"}
    data["root"] = str(ctx.root)
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


class FactCache:
    def __init__(self, root: Path, ctx: ExtractContext, versions: dict[str, str]):
        self.dir = root / CACHE_DIR / f"v{FACTS_SCHEMA_VERSION}"
        self.ctx_key = context_key(ctx)
        self.versions = versions
        self.hits = 0
        self.misses = 0
        self.enabled = True

    def _key(self, src: SourceFile) -> str:
        v = self.versions.get(src.kind, "0")
        return hashlib.sha256(f"{src.rel}\0{src.digest}\0{src.kind}\0{v}\0{self.ctx_key}".encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, src: SourceFile, digests: dict[str, str]) -> Optional[FileFacts]:
        p = self._path(self._key(src))
        try:
            data = loads_facts(p.read_text(encoding="utf-8"))
            deps = data.get("deps", {})
            if any(digests.get(rel) != d for rel, d in deps.items()):
                self.misses += 1
                return None
            ff = data["facts"]
            if not isinstance(ff, FileFacts):
                raise ValueError("not facts")
        except (OSError, ValueError, KeyError, TypeError):
            self.misses += 1
            return None
        self.hits += 1
        return ff

    def put(self, src: SourceFile, facts: FileFacts, digests: dict[str, str]) -> None:
        if not self.enabled:
            return
        deps = {rel: digests.get(rel) for rel in facts.includes}
        payload = json.dumps({"deps": deps, "facts": to_json(facts)}, separators=(",", ":"))
        p = self._path(self._key(src))
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            gi = self.dir.parent / ".gitignore"
            if not gi.exists():
                gi.write_text("# created by trtlint\n*\n", encoding="utf-8")
            fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(payload)
            os.replace(tmp, p)
        except OSError:
            self.enabled = False  # a read-only tree: run on without the cache
