from pathlib import Path

from trtlint.frontends import ExtractContext, SourceFile
from trtlint.frontends import cmake as fe


def extract(tmp_path: Path, rel: str, text: str):
    p = tmp_path / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return fe.extract(SourceFile(p, rel, "cmake", "d"), ExtractContext(root=tmp_path))


def test_globs_paths_and_targets(tmp_path):
    text = (
        "# file(GLOB COMMENTED \"nope/*.cpp\")\n"
        "#[[ a bracket comment\n"
        "file(GLOB ALSO_NOPE \"x/*.cpp\")\n"
        "]]\n"
        'file(GLOB_RECURSE PLUGIN_SRCS CONFIGURE_DEPENDS "plugins/*.cpp")\n'
        "file(GLOB KERNELS\n"
        "     RELATIVE ${CMAKE_CURRENT_SOURCE_DIR}\n"
        '     "${CMAKE_CURRENT_SOURCE_DIR}/kernels/*.cu"\n'
        '     "${CMAKE_SOURCE_DIR}/shared/*.cu")\n'
        "file(GLOB UNKNOWN ${SOME_VAR}/*.cpp)\n"
        "set(ALL_SRCS ${PLUGIN_SRCS} ${KERNELS})\n"
        "add_library(myplugins SHARED ${ALL_SRCS})\n"
        "target_sources(other PRIVATE ${KERNELS})\n"
    )
    ff = extract(tmp_path, "cpp/CMakeLists.txt", text)
    got = [(g.var, g.recurse, g.patterns, g.span.line, g.targets) for g in ff.globs]
    assert got == [
        ("PLUGIN_SRCS", True, ("cpp/plugins/*.cpp",), 5, ("myplugins",)),
        ("KERNELS", False, ("cpp/kernels/*.cu", "shared/*.cu"), 6, ("myplugins", "other")),
        ("UNKNOWN", False, (), 10, ()),  # a pattern through an unknown variable is not guessed
    ]
    assert ff.problems == ()


def test_unterminated_and_non_utf8(tmp_path):
    ff = extract(tmp_path, "CMakeLists.txt", 'file(GLOB_RECURSE S "src/*.cpp"\n')
    assert [g.var for g in ff.globs] == ["S"] and ff.problems == ()
    p = tmp_path / "bad.cmake"
    p.write_bytes(b"file(GLOB X \"\xff*.cpp\")\n")
    ff = fe.extract(SourceFile(p, "bad.cmake", "cmake", "d"), ExtractContext(root=tmp_path))
    # a list file in a legacy encoding is read (issue 23: GBK comments in real projects), each stray byte as '?'
    assert [(g.var, g.patterns) for g in ff.globs] == [("X", ("?*.cpp",))] and ff.problems == ()
