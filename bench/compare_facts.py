"""Compare two fact dumps of bench/cpp_frontend_bench.py: python bench/compare_facts.py BEFORE.json AFTER.json"""
from __future__ import annotations

import json
import sys

FIELDS = ("classes", "functions", "registrations", "includes", "problems")
FN_FIELDS = ("calls", "returns", "field_decls", "field_reads")


def strip(o, drop=("guard", "style")):
    if isinstance(o, dict):
        return {k: strip(v, drop) for k, v in o.items() if k not in drop}
    if isinstance(o, list):
        return [strip(x, drop) for x in o]
    return o


def main() -> None:
    a = json.load(open(sys.argv[1]))
    b = json.load(open(sys.argv[2]))
    ndiff = 0
    for f in sorted(set(a) | set(b)):
        fa, fb = strip(a.get(f, {})), strip(b.get(f, {}))
        for key in FIELDS:
            if key == "functions":
                ga = {x["usr"] + "|" + x["qualname"]: x for x in fa.get(key, [])}
                gb = {x["usr"] + "|" + x["qualname"]: x for x in fb.get(key, [])}
                for k in sorted(set(ga) - set(gb)):
                    print(f"{f}: function only before: {k}"); ndiff += 1
                for k in sorted(set(gb) - set(ga)):
                    print(f"{f}: function only after: {k}"); ndiff += 1
                for k in sorted(set(ga) & set(gb)):
                    for fk in ("span", "cls", "noexcept") + FN_FIELDS:
                        if ga[k][fk] != gb[k][fk]:
                            ndiff += 1
                            va, vb = ga[k][fk], gb[k][fk]
                            if isinstance(va, list):
                                sa = [json.dumps(x, sort_keys=True) for x in va]
                                sb = [json.dumps(x, sort_keys=True) for x in vb]
                                print(f"{f}: {k.split('|')[1]}.{fk}: -{[x for x in sa if x not in sb]} +{[x for x in sb if x not in sa]}"
                                      + (" (order)" if sorted(sa) == sorted(sb) else ""))
                            else:
                                print(f"{f}: {k.split('|')[1]}.{fk}: {va} -> {vb}")
            elif fa.get(key) != fb.get(key):
                ndiff += 1
                print(f"{f}: {key}: {json.dumps(fa.get(key))[:600]}\n   -> {json.dumps(fb.get(key))[:600]}")
    print(f"{ndiff} differences")


if __name__ == "__main__":
    main()
