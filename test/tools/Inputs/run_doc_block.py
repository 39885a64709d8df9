#!/usr/bin/env python3
"""run_doc_block.py DOC NAME [--write FILE | --run | --run-steps]

Finds the fenced code block that follows `<!-- ci-test: NAME -->` in the
markdown file DOC and
  --write FILE   writes it to FILE (made executable),
  --run          runs it with bash -e in the current directory,
  --run-steps    (a GitHub Actions workflow) runs each `run:` step with bash -e
                 after the checkout step, in order, stopping at a failure.
Fails when the block is missing: the docs and the test must not drift.
"""
import os
import re
import subprocess
import sys


def block(doc, name):
    text = open(doc, encoding="utf-8").read()
    m = re.search(r"<!-- ci-test: %s -->\s*\n```[a-z]*\n(.*?)\n```" % re.escape(name),
                  text, re.S)
    if not m:
        sys.exit("no block '%s' in %s" % (name, doc))
    return m.group(1) + "\n"


def run_steps(workflow):
    """The `run:` scripts of a workflow, in order (single-line or `|`)."""
    steps, lines, i = [], workflow.splitlines(), 0
    while i < len(lines):
        m = re.match(r"^(\s*)(?:- )?run:\s*(.*)$", lines[i])
        if not m:
            i += 1
            continue
        indent, rest = len(m.group(1)), m.group(2)
        if rest.strip() != "|":
            steps.append(rest + "\n")
            i += 1
            continue
        body, i = [], i + 1
        while i < len(lines) and (not lines[i].strip() or
                                  len(lines[i]) - len(lines[i].lstrip()) > indent):
            body.append(lines[i].strip())
            i += 1
        steps.append("\n".join(body) + "\n")
    return steps


def main():
    doc, name, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    code = block(doc, name)
    if mode == "--write":
        with open(sys.argv[4], "w") as f:
            f.write(code)
        os.chmod(sys.argv[4], 0o755)
    elif mode == "--run":
        sys.exit(subprocess.run(["bash", "-e", "-c", code]).returncode)
    elif mode == "--run-steps":
        steps = run_steps(code)
        if not steps:
            sys.exit("no run: steps in block '%s'" % name)
        for step in steps:
            print("+ " + step.strip().replace("\n", "\n+ "), flush=True)
            r = subprocess.run(["bash", "-e", "-c", step])
            if r.returncode != 0:
                sys.exit(r.returncode)
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
