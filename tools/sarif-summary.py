#!/usr/bin/env python3
"""sarif-summary.py SARIF [--outputs FILE]

Prints a Markdown summary of a torch-tidy SARIF file: the number of
findings, a table of findings per check (linked to the check's page when the
SARIF names one) and a table per file. The GitHub Action (action.yml) appends
it to $GITHUB_STEP_SUMMARY. With --outputs, also appends `findings=N` and
`errors=N` (results of level error) to FILE, the step's $GITHUB_OUTPUT.
"""
import argparse
import collections
import json
import sys


def cell(text):
    """A Markdown table cell: '|' would end it, a newline the row."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def result_file(result):
    for loc in result.get("locations", []):
        uri = loc.get("physicalLocation", {}).get("artifactLocation", {}).get("uri")
        if uri:
            return uri[len("file://"):] if uri.startswith("file://") else uri
    return "(no location)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sarif")
    ap.add_argument("--outputs")
    args = ap.parse_args()
    try:
        with open(args.sarif, encoding="utf-8") as f:
            log = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("sarif-summary: cannot read %s: %s" % (args.sarif, e))

    per_check = collections.Counter()
    per_file = collections.Counter()
    help_uri = {}
    errors = 0
    for run in log.get("runs", []):
        for rule in run.get("tool", {}).get("driver", {}).get("rules", []):
            if rule.get("helpUri"):
                help_uri[rule["id"]] = rule["helpUri"]
        for result in run.get("results", []):
            per_check[result.get("ruleId", "(no check)")] += 1
            per_file[result_file(result)] += 1
            errors += result.get("level") == "error"
    total = sum(per_check.values())

    out = ["### torch-tidy: %d finding%s" % (total, "" if total == 1 else "s"), ""]
    if total:
        if errors:
            out += ["%d of level error." % errors, ""]
        out += ["| check | findings |", "|---|---:|"]
        for check, n in sorted(per_check.items(), key=lambda kv: (-kv[1], kv[0])):
            name = "`%s`" % cell(check)
            if check in help_uri:
                name = "[%s](%s)" % (name, help_uri[check])
            out.append("| %s | %d |" % (name, n))
        out += ["", "| file | findings |", "|---|---:|"]
        for path, n in sorted(per_file.items(), key=lambda kv: (-kv[1], kv[0])):
            out.append("| `%s` | %d |" % (cell(path), n))
    else:
        out.append("No findings.")
    print("\n".join(out))
    if args.outputs:
        with open(args.outputs, "a", encoding="utf-8") as f:
            f.write("findings=%d\nerrors=%d\n" % (total, errors))


if __name__ == "__main__":
    main()
