#!/usr/bin/env bash
# torch-tidy lints itself: clang-tidy-19 with the root .clang-tidy (LLVM's
# conventions, bugprone, performance) and clang-include-cleaner-19 (includes
# that are not used) over torch-tidy's own sources: checks/, lib/analysis/,
# tools/driver/, tools/clangd/, tools/plugin/. The headers are checked
# through the sources that include them. Prints each finding and fails on
# any; prints a summary line when there is none.
#
#   tools/self-lint.sh [-p BUILD_DIR] [-j N] [FILE...]
#
# With files, only those (a file outside the build's compile_commands.json
# is checked with `-std=c++17` and the analyses' include paths).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    -p) build=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    *) break ;;
  esac
done
tidy=${CLANG_TIDY:-clang-tidy-19}
cleaner=${CLANG_INCLUDE_CLEANER:-/usr/lib/llvm-19/bin/clang-include-cleaner}
for tool in "$tidy" "$cleaner"; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "self-lint: $tool not found (tools/install-deps.sh installs it)" >&2
    exit 2
  fi
done
if [ ! -f "$build/compile_commands.json" ]; then
  echo "self-lint: no $build/compile_commands.json: configure the build first" >&2
  exit 2
fi
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files 'checks/*.cpp' 'lib/analysis/*.cpp' \
    'tools/driver/*.cpp' 'tools/clangd/*.cpp' 'tools/plugin/*.cpp')
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export tidy cleaner build out
lint_one() {
  local f=$1 name
  name=$(echo "$f" | tr '/' '_')
  local extra=()
  if ! grep -q "\"file\": \"[^\"]*$(basename "$f")\"" "$build/compile_commands.json"; then
    extra=(-- -std=c++17 -I"$PWD/lib/analysis/include" -isystem /usr/lib/llvm-19/include)
  fi
  "$tidy" -p "$build" --quiet "$f" "${extra[@]}" >"$out/$name.tidy" 2>"$out/$name.err" || true
  if [ ${#extra[@]} -eq 0 ]; then
    "$cleaner" --insert=false --print=changes -p "$build" "$f" \
      >"$out/$name.clean" 2>>"$out/$name.err" || true
  fi
}
export -f lint_one
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} bash -c 'lint_one "$1"' _ {}
# A header's findings come once per source that includes it: each once.
for f in "${files[@]}"; do
  name=$(echo "$f" | tr '/' '_')
  grep -hE 'warning:|error:' "$out/$name.tidy" "$out/$name.err" 2>/dev/null || true
  if [ -s "$out/$name.clean" ]; then
    sed "s|^|$f: unused include |" "$out/$name.clean"
  fi
done | sed "s|^$PWD/||" | sort -u >"$out/findings"
cat "$out/findings"
findings=$(wc -l <"$out/findings")
if [ "$findings" -gt 0 ]; then
  echo "self-lint: $findings findings in ${#files[@]} files" >&2
  exit 1
fi
echo "self-lint: ${#files[@]} files, no findings"
