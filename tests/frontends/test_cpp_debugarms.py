"""The arms of preprocessor conditionals only a debug build compiles (frontends/cpp/debugarms.py)."""

from trtlint.frontends.cpp.debugarms import arm_at, debug_arms

_SRC = b"""a();
#ifndef NDEBUG
  sync1();
#if X
  x();
#endif
#else
  rel();
#endif
#ifdef NDEBUG
  rel2();
#else
  dbg2();
#endif
#if !defined(NDEBUG) || FORCE
  nope();
#endif
#ifdef _DEBUG
  dbg3();
#elif Y
  y();
#endif
#  if !defined(NDEBUG)   // trace
  dbg4();
#  endif
#ifndef NDEBUG
  unclosed();
"""


def test_debug_arms_and_the_directive_holding_each_call():
    arms = debug_arms(_SRC)
    got = {name: arm_at(arms, _SRC.find(name.encode())) for name in
           ("a()", "sync1", "x()", "rel()", "rel2", "dbg2", "nope", "dbg3", "y()", "dbg4", "unclosed")}
    assert got == {
        "a()": "", "sync1": "#ifndef NDEBUG", "x()": "#ifndef NDEBUG",  # (a nested conditional inside the arm)
        "rel()": "", "rel2": "", "dbg2": "#else of #ifdef NDEBUG",
        "nope": "",  # a condition joining NDEBUG with something else is not read as a debug arm
        "dbg3": "#ifdef _DEBUG", "y()": "",  # an #elif arm is not read
        "dbg4": "#  if !defined(NDEBUG)   // trace",
        "unclosed": "",  # an arm the file never closes: the scan lost its way, nothing is claimed
    }
