"""The call-graph expansion's name search (pipeline/cpp_expand.py) and the text scans (store/scancache.py) skip a
large file's arrays of constants, and find what a scan of the whole text finds."""

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
    from trtlint.store.scancache import code_text

    assert len(code_text(data)) < len(data) // 20  # the array is skipped
    names = ce._callish_names(data)
    assert names == _whole_text_names(data)
    assert {"setup", "helper", "Runner::launch", "launch", "detail::run", "lastName"} <= names


def test_a_small_file_is_searched_whole():
    from trtlint.store.scancache import code_text

    data = b"void f() { g(1); }\n"
    assert code_text(data) is data
    assert ce._callish_names(data) == frozenset({"f", "g"})


def test_the_text_scans_skip_arrays_of_constants_and_find_the_same():
    """store.scancache: a large file's parts written only with the characters of an array of integer constants
    (a generated cubin source) are left out of the scans that report no line number, and of model_io's search
    (which reports the line in the whole file): the answers are the ones a scan of the whole text gives."""
    from trtlint.store import scancache as sc

    rows8 = b"".join(b"  " + b", ".join(b"0x%02x" % ((i * 13 + k) & 0xFF) for k in range(12)) + b",\n"
                     for i in range(3000))
    rows64 = b"".join(b"0x%016xULL, 0x%016xULL,\n" % (i * 7919, i * 104729) for i in range(2000))
    data = (b'#include "plugin.h"\n#include <NvInferRuntime.h>\n// loads its plugins with dlopen at run time\n'
            b"static const unsigned char kCubin[] = {\n" + rows8 + b"};\n"
            b"#if NV_TENSORRT_MAJOR >= 10\n#define MAKE_CREATOR(N) REGISTER_TENSORRT_PLUGIN(N)\n#endif\n"
            b"static const unsigned long long kTable[] = {\n" + rows64 + b"};\n"
            b"class FooCreator : public nvinfer1::IPluginCreator {};\n// trtexec --plugins=libfoo.so\n")
    code = sc.code_text(data)
    assert len(code) < len(data) // 10  # the arrays are left out
    for scan in (sc.has_plugin_marker, sc.has_our_nolint, sc.pp_idents, sc.marker_macros, sc.include_names,
                 sc.class_bases):
        assert scan(code) == scan(data), scan.__name__
    assert sc.class_bases(code) == (("FooCreator", ("IPluginCreator",)),)
    assert sc.include_names(code) == ("plugin.h", "NvInferRuntime.h")
    assert sc.marker_macros(code) == ("MAKE_CREATOR",)
    io = sc.model_io(data)
    lines = data.split(b"\n")
    for kind, line, text in io:  # each at the line of the whole file that holds it
        assert text.encode() in lines[line - 1], (kind, line, text)
    assert {t for _k, _l, t in io} == {"dlopen", "trtexec", "--plugins"}
