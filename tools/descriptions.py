#!/usr/bin/env python3
"""What torch-tidy finds, in one sentence, from checks/Checks.def.

The "finds" phrase of each check in checks/Checks.def is joined into
"Finds a, b and c in LibTorch code." (the driver's libtorchFindsSentence
joins them the same way for --version). That sentence is the description of
the pre-commit hook (.pre-commit-hooks.yaml), it ends the GitHub Action's
(action.yml), and CMake puts it in the Debian package's description.

Each row's summary is the first paragraph of the check's header comment and
of its docs page, Markdown's code quotes included; --write writes it there
where it is stale, --check fails where one of them says otherwise, and where
the README's table of checks lacks a check's row, has one of no check, or
links another page.

Usage: tools/descriptions.py --sentence   print the sentence
       tools/descriptions.py --check      fail if a YAML file, a check's header
                                          or docs page, or the README's table
                                          says otherwise
       tools/descriptions.py --write      rewrite the YAML files' descriptions and
                                          the stale summaries of headers and pages
"""

import argparse
import os
import re
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# A row: its class, name, and the string literals after the name (the finds
# phrase, then the summary's pieces).
ROW = re.compile(r'^TORCHTIDY_CHECK\(\s*(\w+),\s*"(libtorch-[\w-]+)",((?:\s*,?\s*"(?:[^"\\]|\\.)*")+)\s*\)',
                 re.M)
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
ACTION_LEAD = ("Static analysis of LibTorch (PyTorch C++) code on the lines a pull request "
               "changes, with SARIF for code scanning and a job summary of the findings. ")


def rows(root=ROOT):
    """(class, name, finds, summary) of each row of checks/Checks.def, the
    summary's literals joined."""
    with open(os.path.join(root, "checks", "Checks.def"), encoding="utf-8") as f:
        text = f.read()
    out = []
    for cls, name, literals in ROW.findall(text):
        pieces = [p.replace('\\"', '"') for p in LITERAL.findall(literals)]
        out.append((cls, name, pieces[0], "".join(pieces[1:])))
    written = len(re.findall(r"^TORCHTIDY_CHECK\(", text, re.M))
    if not out or len(out) != written:
        sys.exit("descriptions: read %d rows of the %d TORCHTIDY_CHECK rows in checks/Checks.def"
                 % (len(out), written))
    return out


def checks(root=ROOT):
    return [(cls, name, finds) for cls, name, finds, _ in rows(root)]


def sentence(root=ROOT):
    finds = [phrase for _, _, phrase in checks(root)]
    joined = finds[0] if len(finds) == 1 else ", ".join(finds[:-1]) + " and " + finds[-1]
    return "Finds %s in LibTorch code." % joined


def summaries(root=ROOT):
    return [(cls, name, summary) for cls, name, _, summary in rows(root)]


def words(text):
    """The words of text, one space apart (how a paragraph wraps is not what
    it says)."""
    return " ".join(text.split())


def header_paragraph(lines, cls):
    """The line range [start, end) of the doc comment's first paragraph above
    `class Cls` in a check's header, else None: also where the comment opens
    with an empty line or has no empty line after the paragraph (the rest
    of the comment would go with it)."""
    at = next((i for i, l in enumerate(lines) if l.startswith("class %s " % cls)), None)
    if at is None:
        return None
    start = at
    while start > 0 and lines[start - 1].startswith("///"):
        start -= 1
    end = start
    while end < at and lines[end][3:].strip():
        end += 1
    if end == start or end == at:
        return None
    return start, end


def header_summary(path, cls):
    """The doc comment's first paragraph above `class Cls` in a check's header."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    span = header_paragraph(lines, cls)
    if span is None:
        return None
    return words(" ".join(l[3:] for l in lines[span[0]:span[1]]))


# A page's paragraphs: the text between blank lines.
PARAGRAPH = re.compile(r"(?:[^\n]*\S[^\n]*(?:\n|$))+")


# A line that starts a Markdown block of its own (a list, a quote, a code
# fence, a heading), which may follow a paragraph without an empty line.
BLOCK_START = re.compile(r"^\s*(?:[-*+>#]|\d+[.)]|```|~~~)", re.M)


def docs_paragraph(text):
    """The match of the first paragraph after a docs page's heading, else None:
    also where the page does not open with its heading, or where a list, a
    quote, a code block or a heading runs into the paragraph."""
    paras = list(PARAGRAPH.finditer(text))
    if len(paras) < 2 or not paras[0].group(0).startswith("# "):
        return None
    if BLOCK_START.search(paras[1].group(0)):
        return None
    return paras[1]


def docs_summary(path):
    """The first paragraph after a docs page's heading."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = docs_paragraph(text)
    return words(m.group(0)) if m else None


def write_summary(root, rel, cls, summary):
    """Rewrites the first paragraph of a header's doc comment or of a docs
    page (rel) as the summary, wrapped to 80 columns; false where the file has
    no such paragraph."""
    path = os.path.join(root, rel)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if rel.endswith(".h"):
        lines = text.split("\n")
        span = header_paragraph(lines, cls)
        if span is None:
            return False
        wrapped = ["/// " + l for l in textwrap.wrap(summary, 76, break_on_hyphens=False,
                                                     break_long_words=False)]
        text = "\n".join(lines[:span[0]] + wrapped + lines[span[1]:])
    else:
        m = docs_paragraph(text)
        if m is None:
            return False
        wrapped = textwrap.fill(summary, 80, break_on_hyphens=False, break_long_words=False)
        text = text[:m.start()] + wrapped + "\n" + text[m.end():]
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return True


def docs_page(name):
    """A check's docs page, relative to the root: docs/checks/<name>.md
    without the libtorch- prefix."""
    return "docs/checks/%s.md" % name[len("libtorch-"):]


def summary_mismatches(root=ROOT):
    """Where a check's header comment or docs page does not open with its
    Checks.def summary: (file, has, want, class)."""
    out = []
    for cls, name, summary in summaries(root):
        want = words(summary)
        header = os.path.join("checks", cls + ".h")
        page = docs_page(name)
        for rel, has in ((header, header_summary(os.path.join(root, header), cls)),
                         (page, docs_summary(os.path.join(root, page)))):
            if has != want:
                out.append((rel, has, want, cls))
    return out


README_ROW = re.compile(r"^\| \[(libtorch-[\w-]+)\]\(([^)]*)\) \|", re.M)


def readme_mismatches(root=ROOT):
    """Where the README's table of checks ("What it finds") differs from
    Checks.def: a check without a row or with two, a row of no check, a row
    whose link is not the check's docs page. The table's columns are the
    README's own longer words; its rows are the checks."""
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        text = f.read()
    table = README_ROW.findall(text)
    names = [name for _, name, _ in checks(root)]
    out = []
    for name in names:
        n = sum(1 for row, _ in table if row == name)
        if n != 1:
            out.append("README.md: %d rows for %s in the table of checks, expected one"
                       % (n, name))
    for row, link in table:
        if row not in names:
            out.append("README.md: a row for %s, which checks/Checks.def does not have" % row)
        elif link != docs_page(row):
            out.append("README.md: the row for %s links %s, not %s" % (row, link, docs_page(row)))
    return out


def yaml_quote(text):
    return "'" + text.replace("'", "''") + "'"


# (file, the line's pattern, what the line must be): one description line each.
def expected_lines(root=ROOT):
    s = sentence(root)
    return [
        (".pre-commit-hooks.yaml", re.compile(r"^  description: .*$", re.M),
         "  description: " + yaml_quote(s)),
        ("action.yml", re.compile(r"^description: .*$", re.M),
         "description: " + yaml_quote(ACTION_LEAD + s)),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--sentence", action="store_true")
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    ap.add_argument("--root", default=ROOT)
    a = ap.parse_args()
    if a.sentence:
        print(sentence(a.root))
        return 0
    stale = 0
    for name, pattern, line in expected_lines(a.root):
        path = os.path.join(a.root, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        found = pattern.findall(text)
        if len(found) != 1:
            print("descriptions: %s: %d description lines, expected one" % (name, len(found)),
                  file=sys.stderr)
            stale += 1
            continue
        if found[0] == line:
            continue
        if a.write:
            with open(path, "w", encoding="utf-8") as f:
                f.write(pattern.sub(lambda _: line, text, count=1))
            print("descriptions: wrote %s" % name)
        else:
            print("descriptions: %s is stale (run tools/descriptions.py --write):\n  has:  %s\n"
                  "  want: %s" % (name, found[0], line), file=sys.stderr)
            stale += 1
    # The summary is written in Checks.def; each header's comment and each
    # docs page opens with it (SARIF reads it from Checks.def).
    for rel, has, want, cls in summary_mismatches(a.root):
        if a.write and write_summary(a.root, rel, cls, want):
            print("descriptions: wrote %s" % rel)
            continue
        print("descriptions: %s does not open with its Checks.def summary:\n  has:  %s\n"
              "  want: %s" % (rel, has, want), file=sys.stderr)
        stale += 1
    # The README's table has a row for each check, linking its page.
    for problem in readme_mismatches(a.root):
        print("descriptions: " + problem, file=sys.stderr)
        stale += 1
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
