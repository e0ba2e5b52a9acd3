#!/usr/bin/env bash
# Prints a short summary of the JaCoCo report that `mvn verify` writes (unit + integration tests merged,
# see the root pom): line and branch coverage of a few packages and of the whole project, then line
# coverage of a few classes. For reading only: no thresholds, nothing here fails on low numbers.
# It fails (exit 1) when the report is missing or records nothing, since that means coverage is broken.
# usage: bin/lib/coverage.sh [REPORT_XML]   (default: target/site/jacoco/jacoco.xml under the checkout)
#
# The XML rather than the CSV: its package and source-file counters count each line once, as the HTML
# report does; summing the CSV's per-class rows counts a line shared by a class and its anonymous
# class twice. /usr/bin/python3 by its path: the first python3 on PATH may be another interpreter.
set -euo pipefail
root=$(cd -P "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
xml=${1:-$root/target/site/jacoco/jacoco.xml}

# The packages and classes worth a line each; everything else is in the HTML report.
packages="io.kodiak.exchange io.kodiak.client io.kodiak.upstream"
classes="io.kodiak.exchange.Phase io.kodiak.exchange.Exchange io.kodiak.exchange.UpstreamAttempt io.kodiak.exchange.RetryPolicy"

if [ ! -s "$xml" ]; then
  echo "coverage: ERROR: no JaCoCo report at $xml: coverage recording is broken (jacoco-maven-plugin in pom.xml)" >&2
  exit 1
fi
[ -x /usr/bin/python3 ] || { echo "coverage: ERROR: /usr/bin/python3 is needed to read $xml" >&2; exit 1; }

/usr/bin/python3 - "$xml" "$packages" "$classes" <<'EOF'
import os, sys
import xml.etree.ElementTree as ET

path, packages, classes = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
try:
    report = ET.parse(path).getroot()  # the DOCTYPE names report.dtd; ElementTree does not fetch it
except ET.ParseError as e:
    sys.exit(f"coverage: ERROR: {path} is not a readable JaCoCo report ({e})")

def counter(element, kind):
    """(covered, total) of an element's own counter of that kind; (0, 0) when it has none."""
    for c in element.findall("counter"):
        if c.get("type") == kind:
            covered = int(c.get("covered"))
            return covered, covered + int(c.get("missed"))
    return 0, 0

def ratio(covered_total):
    covered, total = covered_total
    share = f"{100 * covered / total:5.1f}%" if total else "   n/a"
    return f"{share} {f'{covered}/{total}':<12}"

if counter(report, "LINE")[0] == 0:
    sys.exit(f"coverage: ERROR: {path} records no covered line: the JaCoCo agent did not run in the tests")

by_name = {p.get("name").replace("/", "."): p for p in report.findall("package")}
print(f"{'package / class':<30} {'lines':<19} branches")
for name in packages:
    p = by_name.get(name)
    if p is None:
        print(f"{name:<30} not in the report")
    else:
        print(f"{name:<30} {ratio(counter(p, 'LINE'))} {ratio(counter(p, 'BRANCH'))}".rstrip())
print(f"{'total':<30} {ratio(counter(report, 'LINE'))} {ratio(counter(report, 'BRANCH'))}".rstrip())

for name in classes:
    package, _, simple = name.rpartition(".")
    p = by_name.get(package)
    cls = p.find(f"class[@name='{name.replace('.', '/')}']") if p is not None else None
    if cls is None:
        print(f"{name:<30} not in the report")
        continue
    line = f"{name:<30} {ratio(counter(cls, 'LINE'))}"
    # The whole source file: the class with its nested and anonymous classes, when that differs.
    source = p.find(f"sourcefile[@name='{cls.get('sourcefilename')}']")
    if source is not None and counter(source, "LINE") != counter(cls, "LINE"):
        line += f"(with nested classes {ratio(counter(source, 'LINE')).rstrip()})"
    print(line.rstrip())
print("report:", os.path.join(os.path.dirname(os.path.abspath(path)), "index.html"))
EOF
