#!/usr/bin/env bash
# torch-tidy lints itself: clang-tidy's checks with the root .clang-tidy
# (LLVM's conventions, bugprone, performance) and include-cleaner's unused includes
# over torch-tidy's own sources: checks/, lib/analysis/, tools/driver/,
# tools/clangd/, tools/plugin/, the unit tests (test/unit/) and the runtime
# shim's sources that the build compiles (lib/runtime/src/, with its own
# .clang-tidy for LibTorch's naming, and the project's own libtorch-* checks,
# since it is LibTorch code). The headers are checked through the sources
# that include them. Prints each finding and fails on any; prints a summary
# line when there is none.
#
# One process a file: the unused includes come from clang-tidy's
# misc-include-cleaner (the library clang-include-cleaner runs), added to the
# root's checks here, so that each file is parsed once; its other finding,
# an include that is missing, is not a rule of this code base and is dropped.
#
# The clang-tidy is the one linked into the torch-tidy the build made (LLVM
# 19's in CI's lint.self, 22's with a build against it), run with
# --skip-system-headers: the build gives
# LLVM's and Clang's headers as system headers, and the checks traverse
# torch-tidy's own declarations only, as clang-tidy 22 does by default.
# Without that, three quarters of each file's time went to matching the
# checks over the LLVM headers, whose findings are never shown.
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
if [ ! -f "$build/compile_commands.json" ]; then
  echo "self-lint: no $build/compile_commands.json: configure the build first" >&2
  exit 2
fi
tidy=${TORCH_TIDY:-$build/bin/torch-tidy}
if [ ! -x "$tidy" ]; then
  echo "self-lint: no $tidy: build torch-tidy first" >&2
  exit 2
fi
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files 'checks/*.cpp' 'lib/analysis/*.cpp' \
    'tools/driver/*.cpp' 'tools/clangd/*.cpp' 'tools/plugin/*.cpp' \
    'test/unit/*.cpp')
  # The runtime's sources that this build compiles (its CUDA variants only
  # with a LibTorch built with CUDA), with lib/runtime/.clang-tidy: LibTorch's
  # naming conventions, the rest the root's.
  while IFS= read -r f; do
    if grep -q "\"file\": \"$PWD/$f\"" "$build/compile_commands.json"; then
      files+=("$f")
    fi
  done < <(git ls-files 'lib/runtime/src/*.cpp')
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The lint runs on the build's own compile commands, precompiled headers
# included (CMake's -Xclang -include-pch/-include pairs, TORCHTIDY_PCH): a
# file's LLVM, Clang and standard headers then cost about a quarter of what
# parsing them did (lib/analysis/src/IndexGuards.cpp: 2.3 s instead of 9.0).
# include-cleaner still sees each #include of the file (one of a header in
# the PCH that nothing uses is reported, test/tools/self-lint.test), and the
# checks traverse the same user code; a file with a finding is linted again
# without the PCH (below). What a PCH could hide is an include
# that is missing altogether: a file that uses a declaration of a header
# only the PCH brings in compiles with the PCH and not without it.
# include-cleaner names that header among its missing includes (the
# findings dropped below, --export-fixes keeps the header it would insert);
# tools/pch-free.py runs each such file's compile command without the PCH
# when the header is not among the file's own includes (its `-M` list), and
# fails on an error.
db=$build
mkdir "$out/nopch"
python3 - "$build/compile_commands.json" "$out/nopch/compile_commands.json" <<'PY'
import json, shlex, sys
entries = json.load(open(sys.argv[1]))
for e in entries:
    args = e["arguments"] if "arguments" in e else shlex.split(e["command"])
    kept, i = [], 0
    while i < len(args):
        if args[i] == "-Winvalid-pch":
            i += 1
        elif (args[i] == "-Xclang" and i + 3 < len(args)
              and args[i + 1] in ("-include-pch", "-include") and args[i + 2] == "-Xclang"):
            i += 4
        else:
            kept.append(args[i])
            i += 1
    e.pop("command", None)
    e["arguments"] = kept
json.dump(entries, open(sys.argv[2], "w"), indent=1)
PY
export tidy build db out
# lint_one FILE [DB]: the file's findings into $out (with DB's commands).
lint_one() {
  local f=$1 name
  name=$(echo "$f" | tr '/' '_')
  local extra=()
  if ! grep -q "\"file\": \"[^\"]*$(basename "$f")\"" "$db/compile_commands.json"; then
    extra=(-- -std=c++17 -I"$PWD/lib/analysis/include" -isystem /usr/lib/llvm-19/include)
  fi
  # The unit tests are the house's code too, under test/, whose .clang-tidy
  # is for test inputs: the root's configuration, read explicitly, without
  # the optional-access model, which does not see gtest's ASSERT_TRUE(x)
  # stop the test before x's value is read.
  local config=(--checks='misc-include-cleaner')
  case "$f" in
    # The runtime is LibTorch code: the project's own checks run on it too.
    lib/runtime/*|*/lib/runtime/*)
      config=(--checks='misc-include-cleaner,libtorch-*') ;;
    test/unit/*|*/test/unit/*)
      config=(--config-file="$PWD/.clang-tidy"
        --checks='misc-include-cleaner,-bugprone-unchecked-optional-access') ;;
  esac
  "$tidy" -p "${2:-$db}" --quiet "${config[@]}" --skip-system-headers \
    --no-preamble-cache --no-results-cache --export-fixes="$out/$name.yaml" \
    "$f" "${extra[@]}" >"$out/$name.tidy" 2>"$out/$name.err" || true
}
found() {
  grep -hE 'warning:|error:' "$out/$1.tidy" "$out/$1.err" 2>/dev/null |
    grep -vE 'no header providing .* is directly included \[misc-include-cleaner\]'
}
export -f lint_one found
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} bash -c 'lint_one "$1"' _ {}
# A file with a finding is linted again without the PCH, and that run's
# findings are the file's: include-cleaner does not always see through the
# PCH which header provides a declaration (Builtin::BI__builtin_expect,
# declared by a .def file that clang/Basic/Builtins.h includes, counts for
# Builtins.h only without it). A clean tree has two such files.
again=()
for f in "${files[@]}"; do
  name=$(echo "$f" | tr '/' '_')
  if found "$name" >/dev/null; then
    again+=("$f")
  fi
done
if [ ${#again[@]} -gt 0 ]; then
  printf '%s\n' "${again[@]}" |
    xargs -P "$jobs" -I{} bash -c 'lint_one "$1" "$out/nopch"' _ {}
fi
# A header's findings come once per source that includes it: each once.
for f in "${files[@]}"; do
  found "$(echo "$f" | tr '/' '_')" || true
done | sed "s|^$PWD/||" | sort -u >"$out/findings"
# A file that compiles only with the PCH is a finding too.
rc=0
python3 tools/pch-free.py -j "$jobs" "$out/nopch/compile_commands.json" "$out" "${files[@]}" \
  >>"$out/findings" || rc=$?
if [ "$rc" -gt 1 ]; then
  echo "self-lint: tools/pch-free.py failed (exit status $rc)" >&2
  exit 2
fi
cat "$out/findings"
findings=$(wc -l <"$out/findings")
if [ "$findings" -gt 0 ]; then
  echo "self-lint: $findings findings in ${#files[@]} files" >&2
  exit 1
fi
echo "self-lint: ${#files[@]} files, no findings"
