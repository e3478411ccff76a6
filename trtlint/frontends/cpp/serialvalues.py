"""Values a V2 plugin's serialization moves, for :mod:`.lifecycle`: the C++ type and size of a value written or
read, the value a read call takes, a store through a pointer, and the constant ``getSerializationSize`` returns."""

from __future__ import annotations

import re
from typing import Any, Optional

from .base import Cursor, Unit, children, evaluate_int, look_through, preorder
from .serialhelpers import ELEM0

# the serialization helpers known by name (TensorRT OSS `write`/`read`, `serialize_value`/`deserialize_value`,
# `writeToBuffer`/`readFromBuffer`): a writer -> the index of its value argument; the readers
WRITES = {"write": 1, "serialize_value": 1, "writeToBuffer": 1}
READS = {"read", "readFromBuffer", "deserialize_value"}
# a serialized blob's pointer type, spaces removed: `void const*`, `const char*`, `uint8_t const* const`...
BLOB_T = re.compile(r"(?:void|char|uint8_t|int8_t|unsignedchar|std::byte)const\*(?:const)?|"
                    r"const(?:void|char|uint8_t|int8_t|unsignedchar)\*(?:const)?")
# serialize()'s buffer parameter: `void* buffer`, `char* buf`
OUT_T = re.compile(r"(?:void|char|uint8_t|int8_t|unsignedchar|std::byte)\*(?:const)?")


def type_info(t: Any, K: Any, TK: Any) -> tuple[Optional[str], Optional[int], Optional[str]]:
    """(canonical spelling, size in bytes, kind: int|float|bool|char|enum|record|pointer|other) of a type."""
    try:
        ct = t.get_canonical()
        k = ct.kind
    except Exception:  # noqa: BLE001
        return None, None, None
    if k.name in ("INVALID", "UNEXPOSED", "DEPENDENT"):
        return None, None, None
    try:
        size = ct.get_size()
    except Exception:  # noqa: BLE001
        size = -1
    size = size if isinstance(size, int) and size > 0 else None
    if k == TK.BOOL:
        kind = "bool"
    elif k.name in ("CHAR_S", "CHAR_U", "SCHAR", "UCHAR"):
        kind = "char"
    elif k.name in ("FLOAT", "DOUBLE", "LONGDOUBLE", "HALF", "FLOAT16", "FLOAT128", "BFLOAT16"):
        kind = "float"
    elif k.name in ("SHORT", "USHORT", "INT", "UINT", "LONG", "ULONG", "LONGLONG", "ULONGLONG", "CHAR16", "CHAR32",
                    "WCHAR", "INT128", "UINT128"):
        kind = "int"
    elif k == TK.ENUM:
        kind = "enum"
    elif k == TK.RECORD:
        kind = "record"
        name = ct.spelling or ""
        if re.search(r"\b(__half|half|__nv_bfloat16|nv_bfloat16)\b", name):
            kind = "float"
    elif k == TK.POINTER:
        kind = "pointer"
    else:
        kind = "other"
    name = re.sub(r"\b(?:const|volatile)\s+", "", ct.spelling or "").strip()
    return name or None, size, kind


def read_value(ex: Unit, c: Cursor, name: str, args: list) -> tuple[Optional[str], Optional[int], Optional[str], str]:
    """(ctype, size, kind, expression) of the value a read call (``_READS``) takes from the buffer."""
    K, TK = ex.K, ex.ci.TypeKind
    ctype = size = kind = None
    expr = ""
    if name == "deserialize_value":
        if len(args) >= 3:
            a = look_through(K, args[2])
            try:
                ctype, size, kind = type_info(a.type.get_pointee(), K, TK)
            except Exception:  # noqa: BLE001
                pass
            expr = ex.text_of(args[2])
        return ctype, size, kind, expr
    ctype, size, kind = type_info(c.type, K, TK)
    expr = ex.text_of(c)
    if len(args) >= 2 and (c.type.spelling or "") == "void":
        # a helper with an output parameter: read(d, mX) fills mX
        a = look_through(K, args[1])
        ctype, size, kind = type_info(a.type, K, TK)
        expr = ex.text_of(args[1])
    return ctype, size, kind, expr


def raw_store(ex: Unit, c: Cursor, kids: list) -> bool:
    """An assignment through a pointer or a subscript (``*p = x``, ``*reinterpret_cast<T*>(d) = x``, ``d[i] = x``), or
    from one (``x = *reinterpret_cast<T const*>(d)``)."""
    if len(kids) != 2:
        return False
    lhs = ex.text_of(kids[0]).strip()
    whole = ex.text_of(c)
    rest = whole[whole.find(lhs) + len(lhs):].lstrip() if lhs and lhs in whole else ""
    if not rest.startswith("=") or rest.startswith("=="):
        return False
    # a store (`*p = x`, `d[i] = x`) or a load through a pointer (`x = *reinterpret_cast<float const*>(d)`)
    rhs = rest[1:].lstrip()
    # (`mScales[i] = read<float>(d)` fills an array from a read call: no raw store)
    # (`x = reinterpret_cast<int const*>(d)[0]`: a load of element 0, the same as `*reinterpret_cast<...>(d)`)
    return (lhs.startswith("*") or rhs.startswith("*") or (lhs.endswith("]") and "(" not in rhs)
            or ELEM0.match(rhs.rstrip().rstrip(";").rstrip()) is not None)


def size_value(ex: Unit, fn: Cursor) -> Optional[int]:
    """The constant getSerializationSize returns: its one return statement's value (None: several, or not one)."""
    rets = [c for c in preorder(fn) if c.kind == ex.K.RETURN_STMT]
    if len(rets) != 1:
        return None
    kids = children(rets[0])
    return evaluate_int(kids[0]) if kids else None


_COUNTING_LOOP = re.compile(
    r"\s*for\s*\(\s*(?:(?:const\s+)?[\w:]+\s+)?(?P<i>[A-Za-z_]\w*)\s*=\s*0\s*;\s*(?P=i)\s*<\s*(?P<n>[^;]+?)\s*;\s*"
    r"(?:\+\+\s*(?P=i)|(?P=i)\s*\+\+|(?P=i)\s*\+=\s*1)\s*\)")


def counting_loop_bound(text: str) -> Optional[str]:
    """The bound ``n`` of ``for (int i = 0; i < n; ++i)`` as written (spaces, ``this->`` and casts dropped), else
    None: the loops whose iterations serialize and deserialize can be matched by their bounds."""
    m = _COUNTING_LOOP.match(text)
    if m is None:
        return None
    n = re.sub(r"\bthis\s*->\s*", "", m.group("n"))
    n = re.sub(r"\bstatic_cast\s*<[^<>]*>\s*", "", n)
    n = re.sub(r"\s+", "", n)
    while n.startswith("(") and n.endswith(")"):
        n = n[1:-1]
    return n or None
