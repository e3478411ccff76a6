"""The JUnit XML reporter: one ``<testsuite>`` per file with findings, one failed ``<testcase>`` per finding.

CI systems (GitLab, Jenkins, Azure) show each finding as a failed test named by rule and place. A run without
findings is one passing test case, so the report is never empty.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from trtlint.base.diagnostics import Diagnostic
    from .context import ReportContext


def render_junit(diags: "list[Diagnostic]", ctx: "ReportContext") -> str:
    by_file: dict[str, list] = {}
    for d in diags:
        by_file.setdefault(d.span.path, []).append(d)
    suites = ET.Element(
        "testsuites", name="trtlint", tests=str(max(1, len(diags))), failures=str(len(diags)), errors="0",
        time=f"{ctx.elapsed:.3f}",
    )
    if not diags:
        s = ET.SubElement(suites, "testsuite", name="trtlint", tests="1", failures="0", errors="0", skipped="0")
        ET.SubElement(s, "testcase", name=f"no findings ({ctx.files_checked} files checked)", classname="trtlint")
    for path, ds in by_file.items():
        s = ET.SubElement(
            suites, "testsuite", name=path, tests=str(len(ds)), failures=str(len(ds)), errors="0", skipped="0"
        )
        for d in ds:
            where = f"{path}:{d.span.line}:{d.span.col}"
            tc = ET.SubElement(s, "testcase", name=f"{d.code} {d.name} at {where}", classname=path.replace("/", "."),
                               file=path, line=str(d.span.line))
            lines = [f"{where}: {d.code} {d.name} ({d.severity.value})", d.message]
            if d.logical:
                lines.append(f"location in the model: {d.logical}")
            lines += [f"related: {r.span.path}:{r.span.line}:{r.span.col}: {r.message}" for r in d.related]
            lines += [f"note: {n}" for n in d.notes]
            f = ET.SubElement(tc, "failure", message=d.message, type=d.code)
            f.text = "\n".join(lines)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
