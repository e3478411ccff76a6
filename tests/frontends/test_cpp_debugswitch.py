"""Calls under a run-time debug switch (frontends/cpp/debugswitch.py): the classifier, and the guard the C++
frontend gives the then-branch's calls, with the real libclang."""

from __future__ import annotations

import re

import pytest

from trtlint.base.facts import DEBUG_ONLY
from trtlint.frontends.cpp.debugswitch import is_debug_test

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[A-Za-z_]\w*|\d\w*|->|::|&&|\|\||==|!=|>=|<=|\S')


def _debug(cond: str) -> bool:
    return is_debug_test(_TOKEN.findall(cond))


@pytest.mark.parametrize("cond", [
    'level == "DEBUG"', '"debug" == mode', "mDebug", "this->debug_", "mConfig.debug", "isDebugMode()",
    "logger.isDebugEnabled()", 'getenv("X_DEBUG")', 'std::getenv("FT_DEBUG_LEVEL") != nullptr',
    "logger.getLevel() == Logger::DEBUG", "level == kDEBUG", "mode == LogLevel::kDebug", "(mDebug)",
    "mDebug && stream != nullptr", "ok && (mDebug || isDebugMode())", "mDebug == true", "mDebugLevel > 0",
    "mDebugLevel >= 2", "0 < verbose_debug", 'strcmp(level, "DEBUG") == 0', '!strcmp(level, "debug")',
    'level.compare("DEBUG") == 0', "mDebug || kDEBUG == level",
])
def test_debug_switches(cond):
    assert _debug(cond)


@pytest.mark.parametrize("cond", [
    "!mDebug", 'level != "DEBUG"', "mDebug == false", "debug == 0", "mode == mDebug", 'getenv("X_DEBUG") == nullptr',  # the switch is off
    "mDebug || force",  # another way in
    "level >= kDEBUG", "level <= Logger::DEBUG",  # an ordering: which levels it admits depends on the enum
    "status != kDEBUG_OK", "status == kDEBUG_OK",  # a status named after debugging is no debug level
    "NDEBUG", "kNDEBUG", "debugger", "isDebuggerAttached()",  # no `debug` component
    "run(x, mDebug)", 'log("debug")', "CubDebug(error = cudaMalloc(&p, n))", 'markDebugStage(net, "b0", *t)', "mDebugLevel > -1", "mDebugLevel >= 0", "mDebugLevel < 3",
    "static_cast<int>(mDebug) > 0", "",
])
def test_not_debug_switches(cond):
    assert not _debug(cond)


SRC = r"""#include <cuda_runtime.h>
#include <cstdlib>
#include <string>
#define IF_SET(x) if (x)
static bool gDebug = false;
void f(bool mDebug)
{
    static char const* name = std::getenv("APP_DEBUG_LEVEL");
    if (name != nullptr && std::string(name) == "DEBUG")
    {
        cudaDeviceSynchronize();
    }
    else
    {
        cudaStreamSynchronize(0);
    }
    if (gDebug)
        cudaDeviceSynchronize();
    cudaStreamSynchronize(0);
    while (gDebug)
    {
        cudaDeviceSynchronize();
    }
    if (!gDebug)
    {
        cudaDeviceSynchronize();
    }
    IF_SET(gDebug)
    {
        cudaDeviceSynchronize();
    }
#ifndef NDEBUG
    if (mDebug)
    {
        cudaDeviceSynchronize();
    }
#endif
}
"""


def test_then_branch_of_a_debug_switch_is_debug_only(tmp_path):
    pytest.importorskip("clang.cindex")
    from trtlint.frontends import ExtractContext, SourceFile, cpp

    p = tmp_path / "p" / "a.cpp"
    p.parent.mkdir()
    p.write_text(SRC, encoding="utf-8")
    ff = cpp.extract(SourceFile(path=p, rel="p/a.cpp", kind="cpp", digest="d"), ExtractContext(root=tmp_path))
    (fn,) = [f for f in ff.functions if f.name == "f"]
    got = {c.span.line: c.guard for c in fn.calls if c.callee.startswith("cuda")}
    assert got == {
        11: DEBUG_ONLY + 'if (name != nullptr && std::string(name) == "DEBUG")',
        15: None,  # the else branch
        18: DEBUG_ONLY + "if (gDebug)",  # a then-branch without braces
        19: None,  # after the if
        22: None,  # a while is no if
        26: None,  # a negated switch
        30: None,  # an if a macro's expansion writes is not read
        35: DEBUG_ONLY + "#ifndef NDEBUG",  # the preprocessor's debug arm is named first
    }
