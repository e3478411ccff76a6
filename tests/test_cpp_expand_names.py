"""The call-graph expansion's name search (pipeline/cpp_expand.py): a large file is searched only in its chunks
that hold a `(`, and the names found are the ones a scan of the whole text finds."""

from __future__ import annotations

from trtlint.pipeline import cpp_expand as ce


def _whole_text_names(data: bytes) -> frozenset:
    out = set()
    for name in set(ce._CALLISH.findall(data)):
        parts = [p.strip() for p in ce._TARGS_RE.sub(b"", name).decode("ascii", "replace").split("::")]
        out.add(parts[-1])
        if len(parts) >= 2:
            out.add(parts[-2] + "::" + parts[-1])
    return frozenset(out)


def test_a_generated_array_is_skipped_and_the_names_around_it_are_found():
    rows = b"".join(b"  " + b", ".join(b"0x%016xULL" % (i * 7 + k) for k in range(6)) + b",\n" for i in range(4000))
    data = (b"#include <cstdint>\nnamespace gen {\nint setup(int x) { return helper(x); }\n"
            b"static const uint64_t kCubin[] = {\n" + rows + b"};\n"
            b"template <typename T>\nvoid Runner<T>::launch\n(int n)\n{\n    detail::run(n);\n}\n"
            + b"// " + b"x" * 9000 + b"\nint lastName\n(int);\n}\n")
    assert len(data) > 4 * ce._CHUNK and len(ce._with_parens(data)) < len(data) // 20  # the array is skipped
    names = ce._callish_names(data)
    assert names == _whole_text_names(data)
    assert {"setup", "helper", "Runner::launch", "launch", "detail::run", "lastName"} <= names


def test_a_small_file_is_searched_whole():
    data = b"void f() { g(1); }\n"
    assert ce._with_parens(data) is data
    assert ce._callish_names(data) == frozenset({"f", "g"})
