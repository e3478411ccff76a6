"""The token-level half of the debug-switch extension (frontends/cpp/debugvalues.py): a debug environment query, a
local's declarations in a conditional's other arm, and writes to a local. The rule examples of TRT302 show the whole
mechanism (a local under ``#ifndef NDEBUG``); these pin the conservative edges."""

from __future__ import annotations

import pytest

from trtlint.frontends.cpp import debugvalues as dv

_BLOCKING = """inline bool isLaunchBlocking()
{
    static bool firstCall = true;
    static bool result = false;
    if (firstCall)
    {
        char const* env = std::getenv("CUDA_LAUNCH_BLOCKING"); // CUDA's debugging switch
        result = env != nullptr && std::string(env) == "1";
        firstCall = false;
    }
    return result;
}"""
_STRING_CALLS = ["getenv", "operator==", "basic_string"]


def test_a_cached_cuda_launch_blocking_query_is_a_debug_environment_query():
    assert dv.env_query(dv.tokens(_BLOCKING), _STRING_CALLS) == "CUDA_LAUNCH_BLOCKING"


@pytest.mark.parametrize("body, calls, var", [
    ('bool f() { return getenv("APP_DEBUG") != nullptr; }', ["getenv"], "APP_DEBUG"),
    ('bool f() { char const* e = getenv("APP_DEBUG"); if (!e) { return false; } return e && !strcmp(e, "1"); }',
     ["getenv", "strcmp"], "APP_DEBUG"),
    # the branch would run when the variable is NOT set
    ('bool f() { return getenv("APP_DEBUG") == nullptr; }', ["getenv"], None),
    ('bool f() { char const* e = getenv("APP_DEBUG"); return std::string(e ? e : "") != "0"; }',
     ["getenv", "basic_string", "operator!="], None),
    # a configuration switch, two variables, a call that is no string construction or comparison
    ('bool f() { return getenv("APP_SYNC_ALL") != nullptr; }', ["getenv"], None),
    ('bool f() { return getenv("A_DEBUG") || getenv("B_DEBUG"); }', ["getenv", "getenv"], None),
    ('bool f() { char const* e = getenv("APP_DEBUG"); return e && atoi(e); }', ["getenv", "atoi"], None),
    # the returned local written another way, the pointer reassigned
    ('bool f() { static bool r = false; char const* e = getenv("APP_DEBUG"); r = e != nullptr; r |= gFlag; return r; }',
     ["getenv"], None),
    ('bool f() { char const* e = getenv("APP_DEBUG"); e = "1"; return e != nullptr; }', ["getenv"], None),
])
def test_only_a_query_false_unless_one_debug_variable_is_set_counts(body, calls, var):
    assert dv.env_query(dv.tokens(body), calls) == var


def test_arm_inits_reads_declarations_only():
    assert dv.arm_inits(dv.tokens("    bool const checkError = isLaunchBlocking();\n"), "checkError") == [
        ["isLaunchBlocking", "(", ")"]]
    assert dv.arm_inits(dv.tokens("    bool checkError{false}; // off\n"), "checkError") == [["false"]]
    assert dv.arm_inits(dv.tokens("    checkError = isLaunchBlocking();\n"), "checkError") is None  # no declaration
    assert dv.arm_inits(dv.tokens("    bool checkError;\n"), "checkError") is None
    assert dv.arm_inits(dv.tokens("    bool other = true;\n"), "checkError") == []


def test_writes_sees_assignments_increments_addresses_and_bare_arguments():
    assert not dv.writes(dv.tokens("bool c = true; if (c) { g(); } bool d = c && e;"), "c")
    for text in ("bool c = true; c = false;", "int c = 0; ++c;", "bool c; set(&c);", "bool c; parse(argv, c);",
                 "bool c; c |= x;"):
        assert dv.writes(dv.tokens(text), "c"), text


def test_shown_joins_tokens_as_written():
    assert dv.shown(dv.tokens("ns :: isLaunchBlocking ( )")) == "ns::isLaunchBlocking()"
    assert dv.shown(dv.tokens("a != nullptr && f(x, y)")) == "a != nullptr && f(x, y)"
