#!/usr/bin/env python3
"""A small deterministic mutator of C++ sources, for the stress suite.

Each mutation takes the text and a random.Random and returns the new text
with a one-line description of what it did:
  delete-line     remove one line
  drop-token      remove one token (identifier, number, literal, punctuator)
  swap-idents     swap two different identifiers
  truncate        cut the file at some offset
  duplicate-line  repeat one line
  insert-brace    put a '{' or '}' before some token

mutate() stacks one to three of them. The same text and seed always give the
same variant (only the standard library's Random, seeded explicitly), so a
failure found by run_stress.py is reproduced from its seed alone.

Usage: mutate.py FILE --seed S [--count N] [--out DIR]
  The RUN and CHECK lines of FILE are left out first (prepare()). Without
  --out the variant for seed S goes to stdout (what run_stress.py analysed
  as the variant of that seed); with it, N variants for seeds S*1000003+k
  are written to DIR as <stem>.<seed>.<k>.cpp, descriptions on stdout.
"""

import argparse
import os
import random
import re
import sys

# Comments and literals are single tokens, so a dropped token never leaves
# half a comment behind; what is left is punctuation, one character or one
# of the common multi-character operators.
_TOKEN = re.compile(r"""
    //[^\n]*                         |
    /\*.*?\*/                        |
    "(?:\\.|[^"\\\n])*"              |
    '(?:\\.|[^'\\\n])*'              |
    [A-Za-z_][A-Za-z_0-9]*           |
    \d[\w.']*                        |
    ::|->|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+\+|--|[-+*/%&|^!=]=  |
    \S
""", re.VERBOSE | re.DOTALL)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*\Z")


def tokens(text):
    """(start, end) of each token of text, in order."""
    return [(m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _lines(text):
    return text.splitlines(keepends=True)


def delete_line(text, rng):
    lines = _lines(text)
    if not lines:
        return text, "delete-line: empty file"
    i = rng.randrange(len(lines))
    return "".join(lines[:i] + lines[i + 1:]), "delete-line %d" % (i + 1)


def duplicate_line(text, rng):
    lines = _lines(text)
    if not lines:
        return text, "duplicate-line: empty file"
    i = rng.randrange(len(lines))
    line = lines[i] if lines[i].endswith("\n") else lines[i] + "\n"
    return "".join(lines[:i] + [line] + lines[i:]), "duplicate-line %d" % (i + 1)


def _line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def drop_token(text, rng):
    toks = tokens(text)
    if not toks:
        return text, "drop-token: no tokens"
    s, e = toks[rng.randrange(len(toks))]
    return (text[:s] + text[e:],
            "drop-token %r at line %d" % (text[s:e][:40], _line_of(text, s)))


def swap_idents(text, rng):
    idents = [(s, e) for s, e in tokens(text) if _IDENT.match(text[s:e])]
    for _ in range(20):
        if len(idents) < 2:
            break
        a, b = sorted(rng.sample(idents, 2))
        if text[a[0]:a[1]] != text[b[0]:b[1]]:
            out = (text[:a[0]] + text[b[0]:b[1]] + text[a[1]:b[0]] +
                   text[a[0]:a[1]] + text[b[1]:])
            return out, "swap-idents %r (line %d) and %r (line %d)" % (
                text[a[0]:a[1]], _line_of(text, a[0]),
                text[b[0]:b[1]], _line_of(text, b[0]))
    return text, "swap-idents: no two different identifiers"


def truncate(text, rng):
    if not text:
        return text, "truncate: empty file"
    n = rng.randrange(len(text))
    return text[:n], "truncate at offset %d (line %d)" % (n, _line_of(text, n))


def insert_brace(text, rng):
    toks = tokens(text)
    at = toks[rng.randrange(len(toks))][0] if toks else 0
    brace = rng.choice("{}")
    return (text[:at] + brace + " " + text[at:],
            "insert-brace %r at line %d" % (brace, _line_of(text, at)))


MUTATIONS = [delete_line, drop_token, swap_idents, truncate, duplicate_line,
             insert_brace]
# Truncation throws most of a file away; it is one choice in ten so that
# most variants keep the code the checks look at.
_WEIGHTS = [2, 3, 2, 1, 1, 1]


_TEST_COMMENT = re.compile(r"^\s*//\s*(RUN|CHECK[A-Z0-9-]*):")


def prepare(text):
    """The lit input without its RUN and CHECK lines: mutating those would
    change nothing the checks see."""
    return "".join(l for l in _lines(text) if not _TEST_COMMENT.match(l))


def mutate(text, seed):
    """One variant of text for seed: (variant, [descriptions])."""
    rng = random.Random(seed)
    done = []
    for _ in range(1 + rng.randrange(3)):
        op = rng.choices(MUTATIONS, weights=_WEIGHTS)[0]
        text, what = op(text, rng)
        done.append(what)
    return text, done


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--out")
    args = ap.parse_args()
    with open(args.file, encoding="utf-8") as f:
        text = prepare(f.read())
    if not args.out:
        variant, _ = mutate(text, args.seed)
        sys.stdout.write(variant)
        return
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.splitext(os.path.basename(args.file))[0]
    for k in range(args.count):
        variant, what = mutate(text, args.seed * 1000003 + k)
        name = "%s.%d.%d.cpp" % (stem, args.seed, k)
        with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
            f.write(variant)
        print("%s: %s" % (name, "; ".join(what)))


if __name__ == "__main__":
    main()
