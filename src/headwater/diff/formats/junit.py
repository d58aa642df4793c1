"""A ``DiffReport`` as a JUnit XML report: one test case per changed column and per statement that no
longer extracts, failed when its verdict reaches the threshold (``--fail-on``)."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from headwater.diff.changes import DiffReport, Verdict


def render_junit(report: DiffReport, fail_on: Verdict = Verdict.BREAKING) -> str:
    suite = ET.Element("testsuite", name="headwater diff")
    failures = 0
    for c in report.columns:
        case = ET.SubElement(suite, "testcase", classname=c.table, name=c.column)
        if c.file:
            case.set("file", c.file)
            case.set("line", str(c.line or 1))
        if c.verdict.rank >= fail_on.rank and c.verdict is not Verdict.SAFE:
            failures += 1
            ET.SubElement(case, "failure", type=c.verdict.value, message=c.reason).text = c.reason
        else:
            ET.SubElement(case, "system-out").text = f"{c.verdict.value}: {c.reason}"
    for p in report.problems:
        case = ET.SubElement(suite, "testcase", classname=p.file or "", name=p.location)
        failures += 1
        ET.SubElement(case, "failure", type=p.code, message=p.message).text = p.message
    suite.set("tests", str(len(report.columns) + len(report.problems)))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    root = ET.Element("testsuites", name="headwater diff", tests=suite.get("tests", "0"), failures=str(failures))
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
