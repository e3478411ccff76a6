"""What every reporter reads besides the diagnostics: the run's :class:`ReportContext`, and
:func:`is_opaque` for locations that are logical only."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:  # pragma: no cover
    from trtlint.base.diagnostics import Diagnostic


_PARTLY_KINDS = ("cpp", "cuda", "header")


@dataclass(frozen=True)
class Analysis:
    """What a run analysed, for the summary: the plugin and creator classes it resolved, the build targets
    (None: not known), and the C++ units it could analyse only partly, each with the ``#include``s that did
    not resolve in it as ``(name, path, line)``. Built from the index (:meth:`of_index`); a plain value, so
    the run memo keeps it with the findings (:meth:`to_dict` / :meth:`from_dict`)."""

    plugins: int = 0
    creators: int = 0
    targets: Optional[int] = None
    partly: tuple = ()  # ((unit, ((name, path, line), ...)), ...), by unit
    # the TensorRT release judged against and why (index.TensorRTTarget.to_dict), with "programs": scope -> the
    # same, when the project holds several programs; None: not known (an older run memo)
    tensorrt: Optional[dict] = None
    # the independent programs the build model found, counted by how each was found: (("CMake", 2), ("Makefile",
    # 40)); () for a project of one program
    programs: tuple = ()
    # the include dirs the C++ frontend guessed: ((unit, dir, include as written), ...), by unit
    guessed: tuple = ()
    # with several programs: the C++/CUDA units no program builds (no target, build file or compile_commands.json)
    uncovered: tuple = ()
    # the callees with no body read in the branches of a data-type dispatch a hot method reaches:
    # ((plugin, method, callee, path, line, why), ...) (index.unentered)
    unentered: tuple = ()
    # the headers no unit includes whose findings were set aside: ((path, findings), ...) (pipeline.unincluded)
    unincluded: tuple = ()
    # the programs whose Makefile make cannot run, their findings set aside: ((makefile, line, include as written,
    # findings, the files only it compiles), ...) (pipeline.unincluded.unrunnable_programs)
    unrunnable: tuple = ()
    # the plugin classes only code for older TensorRT releases creates, their findings set aside: ((class, path,
    # line, directive, newest release compiling it, target, findings, files of its code, creators set aside with it),
    # ...) (pipeline.oldrelease)
    old_release: tuple = ()
    # the code only a build option the project marks experimental or deprecated builds, its findings set aside:
    # ((option, value it needs, where the branch is, why marked, findings, files), ...) (pipeline.buildmodel.gates)
    optional: tuple = ()
    # the Python calls handing a function a PluginField collection that no plugin helper of the project completes:
    # ((path, line, function, why), ...) (index.paramhelpers)
    unfollowed_helpers: tuple = ()
    # the C++ units (with no missing include) using CUDA names the stand-in headers do not declare, whose calls
    # over them clang drops: ((unit, (name, ...)), ...), by unit (FileFacts.stand_in_gaps)
    stand_in_gaps: tuple = ()
    # Python ``X.make_node`` calls on objects that are not onnx.helper naming a non-default op: ((path, line, call,
    # op), ...) (FileFacts.wrapped_emissions)
    wrapped: tuple = ()

    def gap_names(self) -> list[str]:
        """The CUDA names the stand-in headers lack, most units first (ties by name)."""
        count: dict[str, int] = {}
        for _unit, names in self.stand_in_gaps:
            for name in names:
                count[name] = count.get(name, 0) + 1
        return sorted(count, key=lambda n: (-count[n], n))

    @classmethod
    def of_index(cls, index, build=None, scoped=None, aside=None, aside_builds=None, aside_old=None,
                 includes=None, aside_optional=None) -> "Analysis":
        """``build``: the run's build model (``trtlint.pipeline.buildmodel.BuildModel``); its targets count
        when they compile a file that defines an analysed plugin or creator (or its methods). ``scoped``: scope
        -> index of each independent program (pipeline.check.scope_indexes); each program's classes are counted
        from its own index (the whole one holds one class per name). ``aside``: header -> the findings set aside
        in it because no unit includes it (pipeline.check.Checked.aside). ``aside_builds``: Makefile -> (line,
        include, findings set aside, its files) of each program whose Makefile cannot run (``Checked.aside_builds``).
        ``aside_old``: plugin class -> (OldPlugin, findings set aside) (``Checked.aside_old``). ``includes``:
        what the C++ files' ``#include`` names reach (``pipeline.unincluded.IncludeReach``): a target also counts when
        one of its sources includes the header defining a class's methods, directly or through other headers, when no
        unit defines any of them (a plugin defined in a header, built by a unit with no marker of its own, which the
        run did not parse; a header declaring a class whose methods a unit defines does not make its includers hold
        the class). ``aside_optional``: build option -> (value it needs, where, why marked, findings set aside, its
        files) of the code only an option the project marks experimental or deprecated builds
        (``Checked.aside_optional``)."""
        from trtlint.index.project_index import scope_of
        from trtlint.index.unentered import unentered

        # a class that defines none of a plugin's (a creator's) naming or working methods, here or in a project
        # base, is a base of classes that were not seen (TRT004 reports them): not counted as analysed
        def counts(idx, c, methods) -> bool:
            return c.cls.family in ("python", "qdp") or any(idx.find_method(c.qualname, m) for m in methods)

        scopes = tuple(scoped or ())
        plugins, creators, files = [], [], set()
        defined: set = set()  # the headers defining a counted class's methods, when none is defined in a unit
        for s, idx in [("", index), *(scoped or {}).items()]:
            mine = [c for c in idx.plugins if scope_of(c.cls.span.path, scopes) == s
                    and counts(idx, c, ("getPluginName", "getPluginType", "enqueue"))]
            made = [c for c in idx.creators if scope_of(c.cls.span.path, scopes) == s
                    and counts(idx, c, ("getPluginName", "createPlugin"))]
            plugins += mine
            creators += made
            for c in mine + made:
                files.add(c.cls.span.path)
                code = {fn.span.path for fn in idx.class_methods(c.qualname)}
                files.update(code)
                if code and all(getattr(index.files.get(p), "kind", "header") == "header" for p in code):
                    defined.update(code)  # defined in headers only: held by the targets whose units include them
        targets = None
        if build is not None and getattr(build, "targets", ()):
            names = _IncludeNames(includes)
            targets = sum(1 for t in build.targets if files.intersection(t.sources) or names.reach_any(
                t.sources, defined, index))
        partly = []
        for path, ff in sorted(index.files.items()):
            if ff.kind not in _PARTLY_KINDS or not getattr(ff, "missing_includes", ()):
                continue
            partly.append((path, tuple(dict.fromkeys((m.name, m.span.path, m.span.line) for m in ff.missing_includes))))
        guessed = tuple((path, g.dir, g.name) for path, ff in sorted(index.files.items())
                        for g in getattr(ff, "guessed_includes", ()))
        gaps = tuple((path, tuple(ff.stand_in_gaps)) for path, ff in sorted(index.files.items())
                     if ff.kind in _PARTLY_KINDS and getattr(ff, "stand_in_gaps", ()))
        wrapped = tuple((path, ln, call, op) for path, ff in sorted(index.files.items())
                        for ln, call, op in getattr(ff, "wrapped_emissions", ()))
        tensorrt = index.tensorrt_target().to_dict()
        if scoped:
            tensorrt["programs"] = {s: idx.tensorrt_target().to_dict() for s, idx in sorted(scoped.items())}
        folders = {k[len("release:"):]: t.to_dict() for k, t in sorted(index.tensorrt_targets.items())
                   if k.startswith("release:") and t is not None}
        if folders:
            tensorrt["folders"] = folders  # directories named for a release (pipeline.trtversion.release_dirs)
        marked = deprecated_code(index, scoped)
        if marked:
            tensorrt["deprecated_code"] = marked  # paths whose names mark them deprecated: not judged
        from trtlint.checks.plugin.deprecated_plugin_interface import unadoptable_deprecations, unused_base_deprecations

        held = unadoptable_deprecations(index, scoped)
        if held:
            tensorrt["unadoptable_deprecations"] = held  # TRT207 findings an older pinned release holds back
        unused = unused_base_deprecations(index, scoped)
        if unused:
            tensorrt["unused_base_deprecations"] = unused  # TRT207 findings in abstract bases nobody uses
        found: dict[str, int] = {}
        for how in (getattr(build, "programs", None) or {}).values():
            found[how] = found.get(how, 0) + 1
        return cls(plugins=len(plugins), creators=len(creators), targets=targets, partly=tuple(partly),
                   tensorrt=tensorrt, programs=tuple(sorted(found.items())), guessed=guessed, stand_in_gaps=gaps, wrapped=wrapped,
                   uncovered=tuple(getattr(build, "uncovered", ()) or ()), unentered=tuple(unentered(index)),
                   unincluded=tuple((aside or {}).items()),
                   unfollowed_helpers=tuple(sorted(set(getattr(index, "unfollowed_helper_calls", ()) or ()))),
                   unrunnable=tuple((mk, ln, inc, k, tuple(fs)) for mk, (ln, inc, k, fs) in sorted((aside_builds or {}).items())),
                   old_release=tuple((p.name, p.path, p.line, p.directive, p.compiled_by, p.target, k,
                                      tuple(dict.fromkeys(r[0] for r in p.regions)), p.creators)
                                     for _q, (p, k) in sorted((aside_old or {}).items())),
                   optional=tuple((o, *rest) for o, rest in sorted((aside_optional or {}).items())))

    def tensorrt_line(self) -> Optional[str]:
        """``TensorRT 8.6 assumed: inferred from find_package(TensorRT 8.6) in CMakeLists.txt:3``; with several
        programs, the versions by how many programs assume them; then the folders named for a release, and the
        paths whose names mark them deprecated, not judged."""
        line = self._held_line()
        marked = (self.tensorrt or {}).get("deprecated_code") or {}
        if line is None or not marked:
            return line
        shown = [d + (f" ({n} files)" if n > 1 else "") for d, n in list(marked.items())[:3]]
        more = f", +{len(marked) - 3} more" if len(marked) > 3 else ""
        n = len(marked)
        names = (f" (or that name{'s' if len(marked) == 1 else ''} such a path)"
                 if any(" (names " in d for d in marked) else "")
        return (f"{line}; {n} path{'' if n == 1 else 's'} whose name marks {'it' if n == 1 else 'them'} deprecated{names}, "
                f"kept for an older TensorRT, not judged for API deprecations and removals (TRT207, TRT610): "
                + ", ".join(shown) + more + "; set judge-deprecated-code = true to judge them")

    def _held_line(self) -> Optional[str]:
        """The release line, then the deprecations not reported because an older release the build also pins
        lacks their replacement (never silent: the count, the release and the setting that reports them), then
        those not reported because their class is an abstract base nobody uses."""
        line = self._unused_line()
        held = (self.tensorrt or {}).get("unadoptable_deprecations") or {}
        if line is None or not held.get("count"):
            return line
        n, rels = held["count"], held.get("releases") or []
        repl = held.get("replacements") or []
        tests = [r for r in rels[:2] if r.startswith("releases before ")]  # the older side of a version test
        why = ("which the build also pins" if not tests else "which the code's version tests also build for"
               if len(tests) == len(rels[:2]) else "which the build pins or the code's version tests build for")
        return (f"{line}; {n} TensorRT interface deprecation{'' if n == 1 else 's'} not reported (TRT207): "
                f"{'its' if n == 1 else 'their'} replacement ({', '.join(repl[:3]) or 'the newer API'}) is not in "
                f"TensorRT {', '.join(rels[:2])}, {why}, and can be adopted only when "
                f"{'that release is' if not tests else 'those releases are'} dropped; set "
                "report-unadoptable-deprecations = true to report them")

    def _unused_line(self) -> Optional[str]:
        """The release line, then the TRT207 deprecations in abstract bases nobody uses (never silent: the count
        and the classes)."""
        line = self._release_line()
        unused = (self.tensorrt or {}).get("unused_base_deprecations") or {}
        if line is None or not unused.get("count"):
            return line
        n, names = unused["count"], unused.get("classes") or []
        more = f", +{len(names) - 3} more" if len(names) > 3 else ""
        return (f"{line}; {n} TensorRT interface deprecation{'' if n == 1 else 's'} not reported (TRT207) in "
                f"abstract base classes that no project class derives and nothing registers or creates: "
                + ", ".join(names[:3]) + more)

    def _release_line(self) -> Optional[str]:
        line = self._tensorrt_line()
        folders = (self.tensorrt or {}).get("folders") or {}
        if line is None or not folders or (self.tensorrt or {}).get("source") == "configured":
            return line
        shown = [f"{d} as {t.get('version')}" + ("" if t.get("reason", "").startswith("the folder name") else
                                                  f" ({t.get('reason')})") for d, t in list(folders.items())[:3]]
        more = f", +{len(folders) - 3} more" if len(folders) > 3 else ""
        n = len(folders)
        return (f"{line}; {n} folder{'' if n == 1 else 's'} named for a TensorRT release judged as that release: "
                + ", ".join(shown) + more)

    def _tensorrt_line(self) -> Optional[str]:
        t = self.tensorrt
        if t is None:
            return None
        programs = t.get("programs") or {}
        if t.get("source") != "configured" and programs:
            count: dict = {}
            for p in programs.values():
                count[p.get("version")] = count.get(p.get("version"), 0) + 1
            if len(count) > 1 or None in count:
                none = sorted(s for s, p in programs.items() if p.get("version") is None)
                named = " (" + ", ".join(none[:3]) + (f", +{len(none) - 3} more" if len(none) > 3 else "") + ")"
                parts = [f"{v or 'none known'} in {n} program{'' if n == 1 else 's'}" + ("" if v else named)
                         for v, n in sorted(count.items(), key=lambda kv: (-kv[1], str(kv[0])))]
                return ("TensorRT versions assumed per program (inferred from each program's files): " + ", ".join(parts)
                        + "; where none is known, TensorRT API deprecations and removals are not judged (TRT207, TRT610; "
                        "set tensorrt-version)")
            t = next(iter(programs.values()))
        if t.get("source") == "configured":
            return f"TensorRT {t['version']} assumed: configured (tensorrt-version)"
        if t.get("source") == "inferred":
            others = t.get("others") or []
            also = f"; the tree also names {', '.join(o.split(' (', 1)[0] for o in others[:3])}" if others else ""
            return f"TensorRT {t['version']} assumed: inferred from {t['reason']}{also}"
        return ("no TensorRT version known: TensorRT API deprecations and removals are not judged (TRT207, TRT610); "
                "set tensorrt-version, or pin TensorRT in CMake or requirements")

    def missing_names(self) -> list[str]:
        """The includes that did not resolve, most units first (ties by name)."""
        count: dict[str, int] = {}
        for _unit, missing in self.partly:
            for name in dict.fromkeys(n for n, _p, _l in missing):
                count[name] = count.get(name, 0) + 1
        return sorted(count, key=lambda n: (-count[n], n))

    def line(self, shown: int = 5) -> str:
        """``analysed 14 plugins, 14 creators in 3 targets; 2 units partly (missing: foo.h, bar.h)``."""
        def n(k: int, word: str) -> str:
            return f"{k} {word}" + ("" if k == 1 else "s")

        out = f"analysed {n(self.plugins, 'plugin')}, {n(self.creators, 'creator')}"
        if self.targets is not None:
            out += f" in {n(self.targets, 'target')}"
        if self.programs:
            total = sum(c for _, c in self.programs)
            out += f" of {n(total, 'program')} ({', '.join(f'{how} {c}' for how, c in self.programs)})"
        if self.uncovered:
            more = f", +{len(self.uncovered) - shown} more" if len(self.uncovered) > shown else ""
            out += (f"; {n(len(self.uncovered), 'unit')} in no program (no build file names them: "
                    f"{', '.join(self.uncovered[:shown])}{more})")
        if self.partly:
            names = self.missing_names()
            more = f", +{len(names) - shown} more" if len(names) > shown else ""
            out += f"; {n(len(self.partly), 'unit')} partly (missing: {', '.join(names[:shown])}{more})"
        if self.stand_in_gaps:
            names = self.gap_names()
            more = f", +{len(names) - shown} more" if len(names) > shown else ""
            k = len(self.stand_in_gaps)
            out += (f"; {n(k, 'unit')} {'uses' if k == 1 else 'use'} CUDA-style names no header of the parse declares "
                    f"(trtlint's stand-ins for CUDA's lack them, or the project's own are not compiled), calls over them "
                    f"not followed ({', '.join(names[:shown])}{more})")
        if self.unentered:
            more = f", +{len(self.unentered) - shown} more" if len(self.unentered) > shown else ""
            out += (f"; {n(len(self.unentered), 'call')} in data-type branches not followed (no body read: "
                    f"{', '.join(f'{p}::{m} -> {c}' for p, m, c, *_ in self.unentered[:shown])}{more})")
        if self.unfollowed_helpers:
            more = f", +{len(self.unfollowed_helpers) - shown} more" if len(self.unfollowed_helpers) > shown else ""
            out += (f"; {n(len(self.unfollowed_helpers), 'call')} handing a function PluginFields not followed "
                    f"(its plugin's fields not judged: "
                    f"{', '.join(f'{fn}(...) at {p}:{ln}: {why}' for p, ln, fn, why in self.unfollowed_helpers[:shown])}"
                    f"{more})")
        if self.wrapped:
            more = f", +{len(self.wrapped) - shown} more" if len(self.wrapped) > shown else ""
            out += (f"; {n(len(self.wrapped), 'node')} made through a make_node that is not onnx.helper's not judged "
                    f"(a converter's own graph class: {', '.join(f'{c}({op!r}) at {p}:{ln}' for p, ln, c, op in self.wrapped[:shown])}"
                    f"{more})")
        if self.unincluded:
            k = sum(c for _p, c in self.unincluded)
            more = f", +{len(self.unincluded) - shown} more" if len(self.unincluded) > shown else ""
            one = len(self.unincluded) == 1
            out += (f"; {n(len(self.unincluded), 'header')} no unit includes {'was' if one else 'were'} not judged "
                    f"({n(k, 'finding')} set aside: {', '.join(p for p, _c in self.unincluded[:shown])}{more}; "
                    f"set judge-unincluded-headers = true to judge {'it' if one else 'them'})")
        if self.unrunnable:
            k = sum(c for _m, _ln, _i, c, _f in self.unrunnable)
            more = f", +{len(self.unrunnable) - shown} more" if len(self.unrunnable) > shown else ""
            one = len(self.unrunnable) == 1
            where = ", ".join(f"{mk}:{ln} `include {inc}`" for mk, ln, inc, _c, _f in self.unrunnable[:shown])
            out += (f"; {n(len(self.unrunnable), 'program')} whose Makefile cannot run {'was' if one else 'were'} "
                    f"not judged ({'it includes' if one else 'each includes'} a file the tree does not have: {where}{more}; {n(k, 'finding')} set "
                    f"aside; set judge-unrunnable-builds = true to judge {'it' if one else 'them'})")
        if self.old_release:
            k = sum(o[6] for o in self.old_release)
            more = f", +{len(self.old_release) - shown} more" if len(self.old_release) > shown else ""
            one = len(self.old_release) == 1
            where = ", ".join(f"{c} (made only at {p}:{ln} under `{d}`, which TensorRT {rel} compiles, {t} not)"
                              for c, p, ln, d, rel, t, _k, _f, _cr in self.old_release[:shown])
            out += (f"; {len(self.old_release)} plugin class{'' if one else 'es'} only code for older TensorRT releases creates "
                    f"{'was' if one else 'were'} not judged ({where}{more}; no model or route reaches "
                    f"{'its creator' if one else 'their creators'}; {n(k, 'finding')} set aside; set "
                    f"judge-old-release-plugins = true to judge {'it' if one else 'them'})")
        if self.optional:
            k = sum(o[4] for o in self.optional)
            one = len(self.optional) == 1
            files = [f for o in self.optional for f in o[5]]
            more = f", +{len(files) - shown} more" if len(files) > shown else ""
            what = "; ".join(f"{o}" + (f"={needs}" if needs else "") + f" at {where}, {why}"
                             for o, needs, where, why, _k, _f in self.optional[:shown])
            out += (f"; code only {'a build option' if one else 'build options'} the project marks experimental or "
                    f"deprecated build{'s' if one else ''} was not judged ({what}: {n(len(files), 'file')}, "
                    f"{', '.join(files[:shown])}{more}; {n(k, 'finding')} set aside; set judge-optional-builds = true "
                    f"to judge it)")
        if self.guessed:
            dirs = list(dict.fromkeys(d for _u, d, _nm in self.guessed))
            more = f", +{len(dirs) - shown} more" if len(dirs) > shown else ""
            out += (f"; include dirs guessed for {n(len({u for u, _d, _nm in self.guessed}), 'unit')} "
                    f"({', '.join(dirs[:shown])}{more}: includes found nowhere else were found there)")
        return out

    def to_dict(self) -> dict:
        return {
            "plugins": self.plugins,
            "creators": self.creators,
            "targets": self.targets,
            "partly_analysed_units": [
                {"unit": unit, "missing_includes": [{"name": nm, "path": p, "line": ln} for nm, p, ln in missing]}
                for unit, missing in self.partly
            ],
            "missing_includes": self.missing_names(),
            **({"tensorrt_version": self.tensorrt} if self.tensorrt is not None else {}),
            **({"programs": dict(self.programs)} if self.programs else {}),
            **({"units_in_no_program": list(self.uncovered)} if self.uncovered else {}),
            **({"unentered_branch_calls": [{"plugin": p, "method": m, "callee": c, "path": path, "line": ln, "why": why}
                                           for p, m, c, path, ln, why in self.unentered]} if self.unentered else {}),
            **({"plugin_helper_calls_not_followed": [{"path": p, "line": ln, "function": fn, "why": why}
                                                     for p, ln, fn, why in self.unfollowed_helpers]}
               if self.unfollowed_helpers else {}),
            **({"emissions_not_followed": [{"path": p, "line": ln, "call": c, "op": op} for p, ln, c, op in self.wrapped]}
               if self.wrapped else {}),
            **({"guessed_include_dirs": [{"unit": u, "dir": d, "include": nm} for u, d, nm in self.guessed]}
               if self.guessed else {}),
            **({"stand_in_gaps": [{"unit": u, "names": list(names)} for u, names in self.stand_in_gaps]}
               if self.stand_in_gaps else {}),
            **({"unincluded_headers_not_judged": [{"path": p, "findings": c} for p, c in self.unincluded]}
               if self.unincluded else {}),
            **({"unrunnable_builds_not_judged": [{"makefile": mk, "line": ln, "include": inc, "findings": c,
                                                  "files": list(fs)}
                                                 for mk, ln, inc, c, fs in self.unrunnable]} if self.unrunnable else {}),
            **({"old_release_plugins_not_judged": [{"plugin": c, "path": p, "line": ln, "directive": d,
                                                    "compiled_by": rel, "target": t, "findings": k, "files": list(fs),
                                                    "creators": list(cr)}
                                                   for c, p, ln, d, rel, t, k, fs, cr in self.old_release]}
               if self.old_release else {}),
            **({"optional_builds_not_judged": [{"option": o, "needs": needs, "where": where, "why": why, "findings": k,
                                                "files": list(fs)}
                                               for o, needs, where, why, k, fs in self.optional]}
               if self.optional else {}),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Analysis":
        return cls(
            plugins=d.get("plugins", 0),
            creators=d.get("creators", 0),
            targets=d.get("targets"),
            partly=tuple((u["unit"], tuple((m["name"], m["path"], m["line"]) for m in u["missing_includes"]))
                         for u in d.get("partly_analysed_units", ())),
            tensorrt=d.get("tensorrt_version"),
            programs=tuple(sorted((d.get("programs") or {}).items())),
            guessed=tuple((g["unit"], g["dir"], g["include"]) for g in d.get("guessed_include_dirs", ())),
            stand_in_gaps=tuple((g["unit"], tuple(g["names"])) for g in d.get("stand_in_gaps", ())),
            wrapped=tuple((w["path"], w["line"], w["call"], w["op"]) for w in d.get("emissions_not_followed", ())),
            uncovered=tuple(d.get("units_in_no_program", ())),
            unentered=tuple((u["plugin"], u["method"], u["callee"], u["path"], u["line"], u["why"])
                            for u in d.get("unentered_branch_calls", ())),
            unincluded=tuple((u["path"], u["findings"]) for u in d.get("unincluded_headers_not_judged", ())),
            unfollowed_helpers=tuple((u["path"], u["line"], u["function"], u["why"])
                                     for u in d.get("plugin_helper_calls_not_followed", ())),
            unrunnable=tuple((u["makefile"], u["line"], u["include"], u["findings"], tuple(u.get("files", ())))
                             for u in d.get("unrunnable_builds_not_judged", ())),
            old_release=tuple((u["plugin"], u["path"], u["line"], u["directive"], u["compiled_by"], u["target"],
                               u["findings"], tuple(u.get("files", ())), tuple(u.get("creators", ())))
                              for u in d.get("old_release_plugins_not_judged", ())),
            optional=tuple((u["option"], u["needs"], u["where"], u["why"], u["findings"], tuple(u.get("files", ())))
                           for u in d.get("optional_builds_not_judged", ())),
        )


def deprecated_code(index, scoped=None) -> dict:
    """path -> how many files in it TRT207 and TRT610 would judge (TensorRT Python API uses the pack lists, classes
    on a TensorRT interface, where a release is known for them: their program's index, ``scoped``) that are not
    judged because the path's name marks it deprecated (:meth:`ProjectIndex.deprecated_mark`); the paths holding
    none are left out."""
    if getattr(index.settings, "judge_deprecated_code", False) or not any(
            k.startswith("deprecated:") for k in index.tensorrt_targets):
        return {}
    from trtlint.index.project_index import scope_of

    scopes = tuple(scoped or ())
    table = index.packs.tensorrt_python_api
    ifaces = index.packs.trt_interfaces
    held = {u.span.path for u in index.trt_api_uses if u.name in table}
    held |= {c.span.path for c in index.classes.values() if any(b in ifaces for b in c.bases)}
    out: dict[str, int] = {}
    for path in sorted(held):
        mark = index.deprecated_mark(path)
        own = (scoped or {}).get(scope_of(path, scopes), index) if scopes else index
        if mark and own.tensorrt_target(path).version:
            out[mark] = out.get(mark, 0) + 1
    return dict(sorted(out.items()))


@dataclass
class ReportContext:
    """What a reporter is told besides the findings: the project, the run's rules and counts, the display options."""

    root: Path  # project root; spans are relative to it
    rules: list = field(default_factory=list)  # Rule classes that were enabled (for the SARIF rules array)
    files_checked: int = 0
    elapsed: float = 0.0
    tool_version: str = "0.1.0"
    color: bool = False  # text: ANSI color or not
    show_source: bool = True  # text: code frames
    problems_summary: bool = True
    # what the run was: the profile and how it was chosen ("detected", "configured", "from --profile"), how
    # the root was found, the paths given (project-relative; None: the whole project) and how many project
    # files they select
    profile: str = ""
    profile_source: str = ""
    root_reason: str = ""
    paths: Optional[list] = None
    files_selected: Optional[int] = None
    analysis: Optional[Analysis] = None  # what the run analysed (None: not known, e.g. a run on unsaved text)
    # the directories ("docs/") and source files the profile's exclude patterns kept out (Discovery.excluded)
    profile_excluded: list = field(default_factory=list)

    def project(self) -> dict:
        """The run's project, as the JSON report and SARIF run properties give it."""
        return {
            "root": str(Path(self.root).resolve()),
            "root_reason": self.root_reason,
            "profile": self.profile,
            "profile_source": self.profile_source,
            "paths": self.paths,
            "files_selected": self.files_selected,
            "excluded_by_profile": list(self.profile_excluded),
        }


def is_opaque(d: "Diagnostic") -> bool:
    """True when a diagnostic's location is logical only (e.g. a node in a binary ONNX model): its line/column
    carry no meaning, so reporters show ``path [graph/node]`` and no region or code frame."""
    return bool(d.logical) and d.span.line <= 1 and d.span.end_line <= 1 and d.span.col <= 1




class _IncludeNames:
    """Whether a unit of a target reaches a file through ``#include``: the includes the C++ frontend resolved (its
    facts), and the ``#include`` names of the text scan through ``reach`` (``pipeline.unincluded.IncludeReach``: its
    ``reached(roots)``), within the unit's own program (a name matched by its tail may be another program's file)."""

    def __init__(self, reach) -> None:
        self.reach = reach

    def reach_any(self, sources, files: set, index) -> bool:
        if not files:  # (nothing to reach: the include walk below is the summary's largest cost after an edit)
            return False
        for u in sources:
            ff = index.files.get(u)
            if ff is not None and files.intersection(getattr(ff, "includes", ()) or ()):
                return True
        got = self.reach.reached(sources) if self.reach is not None else None
        if not got:
            return False
        from trtlint.index.project_index import scope_of

        scopes = tuple(getattr(index, "scopes", ()) or ())
        mine = {scope_of(u, scopes) for u in sources} if scopes else {""}
        return any(f in got and (not scopes or scope_of(f, scopes) in mine) for f in files)
