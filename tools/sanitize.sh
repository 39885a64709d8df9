#!/usr/bin/env bash
# Builds torch-tidy, its plugin and the runtime shim's tests with
# AddressSanitizer and UndefinedBehaviorSanitizer into ${BUILD_DIR:-build-asan}
# and runs on them:
#   1. the check suite through the driver, and through the plugin loaded into
#      Debian's clang-tidy with the ASan runtime preloaded;
#   2. the tool suite (driver options, project mode, SARIF, determinism);
#   3. the stress suite, ${STRESS_VARIANTS:-100} variants (--full: 5000);
#   4. the runtime shim's GoogleTest suites, with leak detection; and the
#      shim built again with ThreadSanitizer (into ${TSAN_BUILD_DIR:-build-tsan})
#      for its tests, among them 16 threads checking at once.
# Only our code is instrumented; the clang libraries and LibTorch are not.
# ASan stops at the first invalid access, UBSan at the first undefined
# behaviour (-fno-sanitize-recover=all). docs/reliability.md says how long
# each part takes and what it found.
#
# Usage: tools/sanitize.sh [--full]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-asan}
TSAN_BUILD_DIR=${TSAN_BUILD_DIR:-build-tsan}
JOBS=${JOBS:-$(nproc)}
STRESS_VARIANTS=${STRESS_VARIANTS:-100}
stress_size=(--variants "$STRESS_VARIANTS")
if [ "${1:-}" = "--full" ]; then
  stress_size=(--full)
elif [ $# -gt 0 ]; then
  echo "usage: $0 [--full]" >&2
  exit 2
fi
# The LLVM that CMake builds against by default (TORCHTIDY_LLVM_VERSION).
LLVM_BIN=/usr/lib/llvm-19/bin
LIT=${LIT:-$LLVM_BIN/../build/utils/lit/lit.py}

step() { echo "sanitize: $* (after $SECONDS s)"; }

step configure and build
# -O0 with line tables only: sanitizer reports still name files and lines,
# and nothing an optimizer removes goes unchecked. The instrumentation makes
# the optimizer slow: on two cores -O0 builds in 4.6 minutes where -O1 took
# 7.1, and the suites below take 0.7 minutes more (2026-12-06). No CUDA
# kernels: only the runtime's CPU side is tested here.
cmake -S . -B "$BUILD_DIR" -G Ninja -DTORCHTIDY_SANITIZE=address,undefined \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O0 -gline-tables-only -DNDEBUG" \
  -DTORCHTIDY_BUILD_CLANGD=OFF -DTORCHTIDY_INTEGRATION=OFF \
  -DTORCHTIDY_BUILD_RUNTIME=ON -DTORCHTIDY_RUNTIME_CUDA=OFF \
  -DTORCHTIDY_RUNTIME_BENCHMARKS=OFF >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" --target torch-tidy TorchTidyPlugin \
  runtime_range_tests runtime_tests_debug runtime_tests_release \
  runtime_tests_enable_checks
# The runtime shim alone (its own CMake project) with ThreadSanitizer, for its
# tests of 16 threads checking at once. LibTorch is not instrumented; its
# thread pool still reports nothing.
cmake -S lib/runtime -B "$TSAN_BUILD_DIR" -G Ninja \
  -DCMAKE_CXX_COMPILER="$LLVM_BIN/clang++" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
  -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
  -DTORCHTIDY_RUNTIME_CUDA=OFF -DTORCHTIDY_RUNTIME_BENCHMARKS=OFF >/dev/null
cmake --build "$TSAN_BUILD_DIR" -j "$JOBS" --target runtime_tests_release

export ASAN_SYMBOLIZER_PATH=$LLVM_BIN/llvm-symbolizer
# Leak detection stays on for all of it: neither clang's libraries nor
# LibTorch leave anything unreachable at exit in these runs, so no leak is
# suppressed (docs/reliability.md).
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
lit=(python3 "$LIT" -sv --param build="$BUILD_DIR")
# The plugin is instrumented, Debian's clang-tidy is not: the ASan runtime
# (with UBSan's handlers) has to be loaded before the plugin is.
asan_runtime=$("$LLVM_BIN/clang++" -print-file-name=libclang_rt.asan-x86_64.so)

step "check suite (driver)"
# The 100k-line file of robustness-large.test takes a minute under ASan
# (15 s without); at a tenth of the size it runs the same instrumented code
# in a tenth of the time, and the uninstrumented runs test the size.
"${lit[@]}" --param large_tu_blocks=385 test/checks
# The same checks through clang-tidy --load. The large file runs the same
# instrumented code as through the driver, so it runs once, above.
step "check suite (plugin in clang-tidy-19)"
"${lit[@]}" --param tidy=plugin --param preload="$asan_runtime" \
  --filter-out 'robustness-large' test/checks
# The tool tests that run the driver's and the plugin's code
# (test/tools/lit.local.cfg.py): the others run no code of ours, or only code
# these and the check suite run (identical-findings.test analyses every check
# input four more times), and tools/test.sh runs them in the plain build.
step "tool suite (driver; the plugin where a test loads it)"
"${lit[@]}" --param preload="$asan_runtime" --param tool_tests=instrumented test/tools
step "stress suite (${stress_size[*]})"
python3 test/stress/run_stress.py --torch-tidy "$BUILD_DIR/bin/torch-tidy" \
  --jobs "$JOBS" "${stress_size[@]}"
step "runtime tests"
ctest --test-dir "$BUILD_DIR" --output-on-failure -R '^runtime\.' \
  -E 'install_consumer'
step "runtime tests (ThreadSanitizer)"
TORCHTIDY_MODE= TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  "$TSAN_BUILD_DIR/test/runtime_tests_release"
step done
