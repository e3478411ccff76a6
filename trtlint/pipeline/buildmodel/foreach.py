"""``foreach()`` loops of the CMake build model: where a loop's body ends and which values the loop variable
takes. A loop over a list of plugin directories (``foreach(p ${PLUGINS}) add_subdirectory(${p}) endforeach()``)
is how many trees reach the directories that compile their plugins; evaluated once per item, its body's
commands see each item. The evaluation stays bounded: the body's commands count against the build model's
command limit like any other, and a ``RANGE`` loop is cut at :data:`MAX_RANGE` values."""

from __future__ import annotations

from typing import Callable, Optional

MAX_RANGE = 1024  # values of one foreach(... RANGE ...)


def block_end(cmds, i: int) -> int:
    """The index of the ``endforeach`` closing the ``foreach`` at ``cmds[i]`` (nested loops counted); len(cmds)
    when it never closes."""
    depth = 0
    for j in range(i, len(cmds)):
        name = cmds[j].name
        if name == "foreach":
            depth += 1
        elif name == "endforeach":
            depth -= 1
            if depth == 0:
                return j
    return len(cmds)


def loop_items(args, expand: Callable[[str, bool], Optional[list[str]]], vars: dict) -> Optional[tuple[str, list[str]]]:
    """``(variable, values)`` of ``foreach(<args>)``: ``foreach(v a b ${L})``, ``foreach(v IN LISTS L1 L2 ITEMS
    x y)``, ``foreach(v RANGE [start] stop [step])``. ``expand(arg, quoted)``: an argument's values, None when it
    names something not known (the loop runs over the values that are known). None when the loop is not
    understood or none of its values is known (then its body runs once, the variable not set); ``IN
    ZIP_LISTS`` is not understood."""
    if not args:
        return None
    var = args[0][0]
    rest = args[1:]
    if not rest:
        return var, []
    head = rest[0][0]
    if head == "RANGE":
        nums = []
        for a, q in rest[1:4]:
            v = expand(a, q)
            if not v or not v[0].lstrip("-").isdigit():
                return None
            nums.append(int(v[0]))
        if not nums:
            return None
        start, stop, step = (0, nums[0], 1) if len(nums) == 1 else (nums[0], nums[1], nums[2] if len(nums) > 2 else 1)
        if step <= 0:
            return None
        return var, [str(n) for n in range(start, stop + 1, step)][:MAX_RANGE]
    if head == "IN":
        out: list[str] = []
        mode = None
        for a, q in rest[1:]:
            if not q and a in ("LISTS", "ITEMS"):
                mode = a
                continue
            if not q and a == "ZIP_LISTS":
                return None
            if mode == "LISTS":
                out.extend(x for x in vars.get(a, ()) if x)
            elif mode == "ITEMS":
                out.extend(expand(a, q) or ())
        return var, out
    out = []
    unknown = False
    for a, q in rest:
        v = expand(a, q)
        if v is None:
            unknown = True  # (a value not known: the loop runs over those that are)
            continue
        out.extend(v)
    return None if unknown and not out else (var, out)
