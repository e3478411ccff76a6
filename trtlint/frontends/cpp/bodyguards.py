"""The guards of the C++ body walk (a mixin of :class:`.body.BodyWalker`): the source ranges whose statements run
once (``if (!mX) { ... }`` and ``if (mX) return; ...`` when the block sets ``mX``, a static local's initialiser,
a ``call_once`` lambda), the ranges after ``if (!p) return ...;`` on a pointer parameter (they run only when
``p`` is set: ``flow.needs_ranges``), and the ways out of a failure (``flow.exit_guard``). Macro calls are
matched against the ranges once the unit is walked (``guard_at``)."""

from __future__ import annotations

import re
from typing import Optional

from . import debugswitch, flow, nonnull, onetime
from .base import Cursor, children, func_kinds, preorder, short


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
        unless they have one already). An ``if`` a macro's expansion writes is not read."""
        f, _l1, _c1, s, *_a = self.ex.extent_info(if_stmt)
        text = self.ex.text_of(cond)
        if f is None or "ebug" not in text and "EBUG" not in text:
            return  # (cheap: most conditions name no debug word)
        data = self.ex.file_bytes(f)
        if data[s:s + 2] != b"if" or (data[s + 2:s + 3].isalnum() or data[s + 2:s + 3] == b"_"):
            return  # the `if` comes from a macro's expansion: its extent is the macro's use
        cf, *_b, co1, _l, _c, co2 = self.ex.extent_info(cond)
        try:
            toks = [t.spelling for t in cond.get_tokens()
                    if co1 <= t.extent.start.offset and t.extent.end.offset <= co2]
        except Exception:  # noqa: BLE001 - a cursor libclang cannot tokenize: not read
            return
        if cf != f or not debugswitch.is_debug_test(toks):
            return
        tf, *_c, to1, _l2, _c2, to2 = self.ex.extent_info(then)
        if tf == f:
            self.debug_ranges.append((f, to1, to2, "if (" + short(" ".join(text.split()), 60) + ")"))

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
