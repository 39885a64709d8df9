#!/usr/bin/env bash
# Fails when a C++ file of torch-tidy's own code is not formatted as
# .clang-format says (LLVM style), and names it. With no arguments: every
# tracked source of checks/, lib/, tools/ and test/unit/ (test inputs keep
# their layout: their CHECK lines name columns). The formatter is pinned to
# clang-format-19 (CLANG_FORMAT overrides): another version formats some
# constructs differently.
set -euo pipefail
cd "$(dirname "$0")/.."
format=${CLANG_FORMAT:-clang-format-19}
if ! command -v "$format" >/dev/null 2>&1; then
  echo "check-format: $format not found (tools/install-deps.sh installs it)" >&2
  exit 2
fi
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files 'checks/*.cpp' 'checks/*.h' 'lib/*.cpp' \
    'lib/*.h' 'lib/*.cu' 'lib/*.cuh' 'tools/*.cpp' 'tools/*.h' \
    'test/unit/*.cpp' 'test/unit/*.h')
fi
bad=()
for f in "${files[@]}"; do
  if ! "$format" --style=file:"$PWD/.clang-format" --dry-run -Werror "$f" \
      >/dev/null 2>&1; then
    bad+=("$f")
  fi
done
if [ ${#bad[@]} -gt 0 ]; then
  printf 'check-format: not formatted: %s\n' "${bad[@]}" >&2
  echo "check-format: run $format -i on them" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
