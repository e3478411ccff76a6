"""The guards of the C++ body walk (a mixin of :class:`.body.BodyWalker`): the source ranges whose statements run
once (``if (!mX) { ... }`` and ``if (mX) return; ...`` when the block sets ``mX``, a static local's initialiser,
a ``call_once`` lambda), the ranges after ``if (!p) return ...;`` on a pointer parameter (they run only when
``p`` is set: ``flow.needs_ranges``), and the ways out of a failure (``flow.exit_guard``). Macro calls are
matched against the ranges once the unit is walked (``guard_at``)."""

from __future__ import annotations

import re
from typing import Optional

from . import debugarms, debugswitch, debugvalues, flow, nonnull, onetime
from .base import Cursor, arguments, children, func_kinds, preorder, short


def _strip_parens(s: str) -> str:
    s = s.strip()
    while s.startswith("(") and s.endswith(")"):
        depth = 0
        for i, ch in enumerate(s):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and i < len(s) - 1:
                return s
        s = s[1:-1].strip()
    return s


def _split_logical(s: str, op: str) -> list[str]:
    """Split at top-level ``&&`` / ``||``."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(s):
        ch = s[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch in "\"'":
            j = i + 1
            while j < len(s) and s[j] != ch:
                j += 2 if s[j] == "\\" else 1
            i = j
        elif depth == 0 and s.startswith(op, i):
            parts.append(s[start:i].strip())
            start = i + len(op)
            i += len(op)
            continue
        i += 1
    parts.append(s[start:].strip())
    return parts


_ID = r"((?:this\s*->\s*)?[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*?)"
_NULLISH = r"(?:nullptr|NULL|0|__null)"
_UNSET_RES = [
    re.compile(r"!\s*" + _ID + r"(?:\s*\.\s*get\s*\(\s*\))?"),
    re.compile(_ID + r"\s*==\s*" + _NULLISH),
    re.compile(_NULLISH + r"\s*==\s*" + _ID),
    re.compile(_ID + r"\s*\.\s*empty\s*\(\s*\)"),
]
_SET_RES = [
    re.compile(_ID + r"(?:\s*\.\s*get\s*\(\s*\))?"),
    re.compile(_ID + r"\s*!=\s*" + _NULLISH),
    re.compile(_NULLISH + r"\s*!=\s*" + _ID),
    re.compile(r"!\s*" + _ID + r"\s*\.\s*empty\s*\(\s*\)"),
]


def _unset_ident(term: str, negate: bool) -> Optional[str]:
    """The variable a condition term tests for being unset (``negate``: for being set), else None."""
    for rx in (_SET_RES if negate else _UNSET_RES):
        m = rx.fullmatch(term)
        if m:
            ident = re.sub(r"\s+", "", m.group(1))
            root = ident.split(".")[0]
            if root.startswith("this->"):
                root = "this->" + root[6:].split("->")[0]
            else:
                root = root.split("->")[0]
            if root in ("true", "false", "nullptr", "NULL", "this"):
                return None
            return root
    return None


def _uses(toks: list[str], ref: tuple[str, ...]) -> bool:
    """Whether the tokens hold the reference ``ref`` (a run of tokens)."""
    n = len(ref)
    return any(tuple(toks[i:i + n]) == ref for i in range(len(toks) - n + 1))


def _known(toks: list[str], known: dict[tuple[str, ...], str]) -> bool:
    """Whether a reference's tokens are one of ``known`` (a local's name; a call without arguments, qualified or not)."""
    name = debugvalues.call_name(toks)
    return tuple(toks) in known or (name is not None and (name, "(", ")") in known)


class Guards:
    """The guard half of :class:`.body.BodyWalker` (it reads the walker's ``ex``, ``fn``, ``params``, ``flow`` and
    keeps ``guard_ranges``)."""

    def guard_range(self, c: Cursor, guard: str, start: Optional[int] = None, end: Optional[int] = None) -> str:
        """Record the source range a guard covers (macro calls are matched against it later); return it."""
        f, _l1, _c1, o1, _l2, _c2, o2 = self.ex.extent_info(c)
        if f is not None:
            self.guard_ranges.append((f, o1 if start is None else start, o2 if end is None else end, guard))
        return guard

    def _has_lambda(self, c: Cursor) -> bool:
        K = self.K
        cur = c
        for _ in range(4):
            if cur.kind == K.LAMBDA_EXPR:
                return True
            if cur.kind not in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CALL_EXPR):
                return False
            sub = children(cur)
            if len(sub) != 1:
                return False
            cur = sub[0]
        return False

    def _is_static_local(self, c: Cursor) -> bool:
        try:
            if c.storage_class != self.ex.ci.StorageClass.STATIC:
                return False
        except Exception:  # noqa: BLE001
            return False
        p = c.semantic_parent
        return p is not None and p.kind in func_kinds(self.K)

    def if_parts(self, c: Cursor, kids: list[Cursor]) -> tuple[Optional[int], Optional[int], Optional[int]]:
        """Indexes of (condition, then-branch, else-branch) among an IF_STMT's children."""
        n = len(kids)
        if n < 2:
            return None, None, None
        if n == 2:
            return 0, 1, None
        if n >= 4:
            return n - 3, n - 2, n - 1
        # three children: (cond, then, else) or (init/condvar, cond, then)
        f1, *_r1, e1 = self.ex.extent_info(kids[1])
        f2, _l, _c, s2, *_r2 = self.ex.extent_info(kids[2])
        if f1 is not None and f1 == f2 and s2 >= e1:
            between = self.ex.file_bytes(f1)[e1:s2]
            if re.search(rb"\belse\b", between):
                return 0, 1, 2
        return 1, 2, None

    def if_guards(self, c: Cursor, kids: list[Cursor], guard: Optional[str]) -> Optional[list[Optional[str]]]:
        ci, ti, _ei = self.if_parts(c, kids)
        if ci is None or ti is None:
            return None
        cond = kids[ci]
        if guard is None:
            self.debug_switch(c, cond, kids[ti])
        flags = self.unset_flags(cond, negate=False)
        if not flags or not self.sets_any([kids[ti]], flags):
            return None  # (a test of a flag the block never sets is a configuration switch: the block runs every call)
        g = self.guard_range(kids[ti], "null-check:" + short(self.ex.text_of(cond), 60))
        out: list[Optional[str]] = [guard] * len(kids)
        out[ti] = g
        return out

    def debug_switch(self, if_stmt: Cursor, cond: Cursor, then: Cursor) -> None:
        """The then-branch of ``if (<a test of a debug switch>)`` (:mod:`.debugswitch`): a debug-only range
        (``debug_ranges``; its calls get the guard ``"debug-only:if (<condition>)"`` when the function is frozen,
        unless they have one already). A switch the condition's words do not show (a local a debug build's arm sets,
        a call of a debug environment query: :mod:`.debugvalues`) adds ``"; where <why>"`` to the guard. An ``if`` a
        macro's expansion writes is not read."""
        f, _l1, _c1, s, *_a = self.ex.extent_info(if_stmt)
        text = self.ex.text_of(cond)
        if f is None:
            return
        worded = "ebug" in text or "EBUG" in text
        calls = "()" in text.replace(" ", "")
        if not worded and not calls and not self._file_scan(f)[0]:
            return  # (cheap: most conditions name no debug word, no call without arguments, in no file with arms)
        data = self.ex.file_bytes(f)
        if data[s:s + 2] != b"if" or (data[s + 2:s + 3].isalnum() or data[s + 2:s + 3] == b"_"):
            return  # the `if` comes from a macro's expansion: its extent is the macro's use
        cf, *_b, co1, _l, _c, co2 = self.ex.extent_info(cond)
        try:
            toks = [t.spelling for t in cond.get_tokens()
                    if co1 <= t.extent.start.offset and t.extent.end.offset <= co2]
        except Exception:  # noqa: BLE001 - a cursor libclang cannot tokenize: not read
            return
        if cf != f:
            return
        why = ""
        if not debugswitch.is_debug_test(toks):
            known = self._debug_values(cond, f)
            if not known or not debugswitch.is_debug_test(toks, lambda t: _known(t, known)):
                return
            why = "; where " + "; ".join(dict.fromkeys(w for k, w in known.items() if _uses(toks, k)))
        tf, *_c, to1, _l2, _c2, to2 = self.ex.extent_info(then)
        if tf == f:
            self.debug_ranges.append((f, to1, to2, "if (" + short(" ".join(text.split()), 60) + ")" + why))

    def _file_scan(self, f: str) -> debugarms.Scan:
        """The file's conditionals (:func:`.debugarms.scan`; none unless it names DEBUG), once per unit."""
        memo = self.ex.__dict__.setdefault("_trtlint_arm_scan", {})
        got = memo.get(f)
        if got is None:
            data = self.ex.file_bytes(f)
            got = memo[f] = debugarms.scan(data) if b"DEBUG" in data else ([], set())
        return got

    def _debug_values(self, cond: Cursor, f: str) -> dict[tuple[str, ...], str]:
        """The references in ``cond`` that are debug switches by :mod:`.debugvalues` (their tokens: ``("v",)`` for a
        local, ``("f", "(", ")")`` for a call), each with why."""
        K = self.K
        out: dict[tuple[str, ...], str] = {}
        arms = bool(self._file_scan(f)[0])
        for c in preorder(cond):
            if c.kind == K.DECL_REF_EXPR and arms:
                d = c.referenced
                if d is not None and d.kind == K.VAR_DECL and (c.spelling,) not in out:
                    why = self._debug_local(d, f)
                    if why:
                        out[(c.spelling,)] = why
            elif c.kind == K.CALL_EXPR and c.spelling and (c.spelling, "(", ")") not in out:
                try:
                    if arguments(c):
                        continue
                    d = c.referenced
                    d = d.get_definition() if d is not None else None
                except Exception:  # noqa: BLE001
                    continue
                var = self._env_query(d) if d is not None else None
                if var:
                    out[(c.spelling, "(", ")")] = f"{c.spelling}() is true only when {var} is set"
        return out

    def _debug_local(self, d: Cursor, f: str) -> str:
        """Why the local ``d`` is a debug switch (:mod:`.debugvalues`: a debug build's arm declares it, and every
        other arm of the conditional with a falsy constant or a debug test; or a release build's arm with a debug
        test), else ""."""
        K = self.K
        p = d.semantic_parent
        if p is None or p.kind not in func_kinds(K):
            return ""
        df, *_a, do1, _l, _c, do2 = self.ex.extent_info(d)
        if df != f:
            return ""
        sib = debugarms.sibling_arms(self._file_scan(f), do1)
        if sib is None or sib[0][3] not in ("debug", "release"):
            return ""
        (_s, _e, shown, role), others = sib
        data = self.ex.file_bytes(f)
        name = d.spelling
        if role == "debug":
            inits: list[list[str]] = []
            for s, e, _shown, _role in others:
                got = debugvalues.arm_inits(debugvalues.tokens(data[s:e].decode("utf-8", "replace")), name)
                if not got:
                    return ""  # no declaration there (or a use of another kind): not read
                inits.extend(got)
            where = f"outside `{shown}`"
        else:
            got = debugvalues.arm_inits(debugvalues.tokens(data[do1:do2].decode("utf-8", "replace")), name)
            if not got:
                return ""
            inits = got
            where = f"in a release build (`{shown}`)"
        shown_inits, envs = [], []
        for init in inits:
            got = self._debug_init(init)
            if got is None:
                return ""
            shown_inits.append(got[0])
            envs.extend(got[1])
        try:
            const = d.type.is_const_qualified()
        except Exception:  # noqa: BLE001
            const = False
        if not const and debugvalues.writes(debugvalues.tokens(self.ex.text_of(self.fn)), name):
            return ""
        why = f"{name} is " + " or ".join(dict.fromkeys(shown_inits)) + " " + where
        envs = list(dict.fromkeys(envs))
        return why + (": true only when " + " / ".join(envs) + " is set" if envs else "")

    def _debug_init(self, init: list[str]) -> Optional[tuple[str, list[str]]]:
        """How an initialiser is a debug switch's value (a falsy constant, a debug test, a debug environment query's
        call): (the initialiser as shown, the environment variables it reads), else None."""
        shown = "`" + short(debugvalues.shown(init), 60) + "`"
        if len(init) == 1 and init[0] in ("false", "0"):
            return shown, []
        if debugswitch.is_debug_test(init):
            return shown, []
        envs: dict[str, str] = {}

        def known(t) -> bool:
            name = debugvalues.call_name(t)
            var = self._env_query_named(name) if name else None
            if var:
                envs[name] = var
            return bool(var)

        if not debugswitch.is_debug_test(init, known):
            return None
        return shown, sorted(set(envs.values()))

    def _env_query_named(self, name: str) -> Optional[str]:
        """The variable the unit's functions named ``name`` without parameters query, when every such definition in
        a project file is a debug environment query (one variable); else None. (A name in text libclang skipped has
        no cursor: the unit's namespace-level definitions are looked up by name, once per unit.)"""
        K = self.K
        defs = self.ex.__dict__.get("_trtlint_fn_by_name")
        if defs is None:
            defs = self.ex.__dict__["_trtlint_fn_by_name"] = {}
            try:
                top = self.fn.translation_unit.cursor
            except Exception:  # noqa: BLE001
                top = None
            todo = children(top) if top is not None else []
            while todo:
                c = todo.pop()
                if c.kind in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
                    if self.ex.rel_of(self.ex.cursor_file(c)) is not None:
                        todo.extend(children(c))
                elif c.kind == K.FUNCTION_DECL and c.is_definition():
                    if self.ex.rel_of(self.ex.cursor_file(c)) is not None:
                        defs.setdefault(c.spelling, []).append(c)
        found = {self._env_query(d) for d in defs.get(name, ())}
        return found.pop() if len(found) == 1 and None not in found else None

    def _env_query(self, d: Cursor) -> Optional[str]:
        """The environment variable function ``d`` (a definition) queries, when it is a debug environment query
        (:func:`.debugvalues.env_query`), else None; once per definition and unit."""
        K = self.K
        memo = self.ex.__dict__.setdefault("_trtlint_env_query", {})
        key = d.hash
        if key in memo:
            return memo[key]
        memo[key] = None
        try:
            if not (d.kind == K.FUNCTION_DECL or d.kind == K.CXX_METHOD and d.is_static_method()) \
                    or list(d.get_arguments()):
                return None  # (a member function reads its object: not one)
        except Exception:  # noqa: BLE001
            return None
        if self.ex.rel_of(self.ex.cursor_file(d)) is None:
            return None  # a library's (the project's own functions only)
        text = self.ex.text_of(d)
        if "getenv" not in text:
            return None
        calls = [c.spelling or "" for c in preorder(d) if c.kind == K.CALL_EXPR]
        memo[key] = debugvalues.env_query(debugvalues.tokens(text), calls)
        return memo[key]

    def block_guards(self, c: Cursor, kids: list[Cursor], guard: Optional[str],
                     parents: tuple[Cursor, ...] = ()) -> Optional[list[Optional[str]]]:
        """``if (mX) return ...;`` in a block: the statements after it run only while mX is unset.
        ``if (!p) return ...;`` on a pointer parameter p: they run only when p is set (``flow.needs_ranges``)."""
        K = self.K
        out: Optional[list[Optional[str]]] = None
        cur = guard
        for i, ch in enumerate(kids):
            if out is not None:
                out[i] = cur
            if ch.kind != K.IF_STMT:
                continue
            sub = children(ch)
            ci, ti, ei = self.if_parts(ch, sub)
            if ci is None or ti is None or ei is not None or not self._is_return(sub[ti]):
                continue
            cond = sub[ci]
            p = self.null_param_test(cond)
            if p is not None:
                self.size_query_return(ch, c, parents, p)
                continue
            if self.params:
                self.set_param_return(ch, c, parents, cond)
            flags = self.unset_flags(cond, negate=True)
            if not flags:
                continue
            if i + 1 >= len(kids):
                break
            if not self.sets_any(kids[i + 1:], flags):
                continue  # `if (mX) return;` with mX never set after it: no one-time set-up
            f, *_a, o2 = self.ex.extent_info(ch)
            bf, *_b, bo2 = self.ex.extent_info(c)
            cur = "null-check:" + short(self.ex.text_of(cond), 60)
            if f is not None and f == bf:
                self.guard_ranges.append((f, o2, bo2, cur))
            if out is None:
                out = [guard] * len(kids)
        ends = flow.exit_guard(self, kids)
        if ends is not None:  # `{ ...; cudaDeviceReset(); exit(EXIT_FAILURE); }`: the way out of a failure
            out = out or [guard] * len(kids)
            out[:-1] = [g if g is not None else ends for g in out[:-1]]
        return out

    def null_param_test(self, cond: Cursor) -> Optional[int]:
        """The index of the pointer parameter whose being null makes ``cond`` true (``!p``, ``p == nullptr``, a
        term of ``||``), else None."""
        K = self.K
        if not self.params:
            return None
        text = self.ex.text_of(cond).strip()
        for t in _split_logical(_strip_parens(text), "||") if text else ():
            t = _strip_parens(t)
            if not any(rx.fullmatch(t) for rx in _UNSET_RES[:3]):
                continue
            ident = _unset_ident(t, negate=False)
            if ident is None or not re.fullmatch(r"[A-Za-z_]\w*", ident):
                continue
            for sub in preorder(cond):
                if sub.kind == K.DECL_REF_EXPR and sub.spelling == ident:
                    d = sub.referenced
                    if d is not None and d.kind == K.PARM_DECL and d.hash in self.params:
                        try:
                            ptr = d.type.get_canonical().kind == self.ex.ci.TypeKind.POINTER
                        except Exception:  # noqa: BLE001
                            ptr = False
                        if ptr:
                            return self.params[d.hash]
                    break
        return None

    def size_query_return(self, if_stmt: Cursor, block: Cursor, parents: tuple[Cursor, ...], p: int) -> None:
        """Everything after ``if (!p) return ...;`` in its block runs only when parameter ``p`` is set, and so does
        the rest of each enclosing block the block is a plain statement of (``{ ...; if (!buf) return; }``)."""
        got = self._after(if_stmt, block, parents)
        if got is not None:
            self.flow.needs_ranges.append((got[0], got[1], p))

    def set_param_return(self, if_stmt: Cursor, block: Cursor, parents: tuple[Cursor, ...], cond: Cursor) -> None:
        """Everything after ``if (p) return ...;`` (``if (p != nullptr) { ...; return; }``) runs only while pointer
        parameter ``p`` is null (``flow.null_ranges``)."""
        try:
            params = nonnull.null_when(flow.derive(self), cond, False)
        except Exception:  # noqa: BLE001 - a cursor libclang cannot answer for: nothing known
            return
        got = self._after(if_stmt, block, parents) if params else None
        if got is not None:
            self.flow.null_ranges.extend((got[0], got[1], p) for p in sorted(params))

    def _after(self, if_stmt: Cursor, block: Cursor, parents: tuple[Cursor, ...]) -> Optional[tuple[int, int]]:
        """The offsets from the end of ``if_stmt`` to the end of its block, and of each enclosing block the block is
        a plain statement of."""
        K = self.K
        f, *_a, start = self.ex.extent_info(if_stmt)
        bf, *_b, end = self.ex.extent_info(block)
        if f is None or f != bf:
            return None
        for anc in reversed(parents):
            if anc.kind != K.COMPOUND_STMT:
                break
            af, *_c, aend = self.ex.extent_info(anc)
            if af != f:
                break
            end = max(end, aend)
        return start, end

    def guard_at(self, f: str, start: int, end: int) -> Optional[str]:
        """The innermost recorded guard range holding [start, end) of file ``f``."""
        best: Optional[tuple[int, str]] = None
        for gf, s, e, g in self.guard_ranges:
            if gf == f and s <= start and end <= e and (best is None or e - s < best[0]):
                best = (e - s, g)
        return best[1] if best is not None else None

    def _is_return(self, c: Cursor) -> bool:
        K = self.K
        if c.kind == K.RETURN_STMT:
            return True
        if c.kind == K.COMPOUND_STMT:
            sub = children(c)
            return bool(sub) and sub[-1].kind == K.RETURN_STMT
        return False

    def is_unset_test(self, cond: Cursor, negate: bool) -> bool:
        """Whether ``cond`` tests that a member / static / global is unset (``negate``: that it is set; then
        the early-return form). A conjunct of ``&&`` (``||`` when negated) is enough."""
        return bool(self.unset_flags(cond, negate))

    def unset_flags(self, cond: Cursor, negate: bool) -> list[str]:
        """The members / statics / globals ``cond`` tests for being unset (``negate``: set), by name."""
        text = self.ex.text_of(cond).strip()
        if not text:
            return []
        out = []
        for t in _split_logical(_strip_parens(text), "||" if negate else "&&"):
            ident = _unset_ident(_strip_parens(t), negate)
            if ident is not None and self._is_state_var(cond, ident):
                out.append(ident[6:] if ident.startswith("this->") else ident)
        return out

    def sets_any(self, stmts: list[Cursor], flags: list[str]) -> bool:
        return onetime.sets_any(self.ex, self.fn, stmts, flags)

    def _is_state_var(self, cond: Cursor, ident: str) -> bool:
        """``ident`` (``this->x`` or a name) is a data member, a static or a global, not a local/parameter."""
        K = self.K
        name = ident[6:] if ident.startswith("this->") else ident
        if ident.startswith("this->"):
            return True
        for sub in preorder(cond):
            if sub.kind in (K.MEMBER_REF_EXPR, K.DECL_REF_EXPR) and sub.spelling == name:
                d = sub.referenced
                if d is None:
                    break
                if d.kind == K.FIELD_DECL:
                    return True
                if d.kind == K.VAR_DECL:
                    p = d.semantic_parent
                    if p is None or p.kind not in func_kinds(K):
                        return True  # global, namespace-scope or static data member
                    return self._is_static_local(d)
                return False
        # unresolved (missing headers): naming conventions for members / statics / globals
        return bool(re.match(r"(?:m|s|g)[A-Z_]|m_|s_|g_", name))
