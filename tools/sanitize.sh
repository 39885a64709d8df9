#!/usr/bin/env bash
# Builds torch-tidy with AddressSanitizer and UndefinedBehaviorSanitizer into
# ${BUILD_DIR:-build-asan} and runs the check suite (driver) and the stress
# suite's default size on it. Our code is instrumented, the clang libraries
# are not. Leak detection is off: clang-tidy frees its ASTs at exit only in
# part, by design; ASan still stops at the first invalid access and UBSan at
# the first undefined behaviour (-fno-sanitize-recover=all).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-asan}
JOBS=${JOBS:-$(nproc)}
cmake -S . -B "$BUILD_DIR" -G Ninja -DTORCHTIDY_SANITIZE=address,undefined \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTORCHTIDY_BUILD_RUNTIME=OFF \
  -DTORCHTIDY_BUILD_CLANGD=OFF -DTORCHTIDY_INTEGRATION=OFF
cmake --build "$BUILD_DIR" -j "$JOBS" --target torch-tidy TorchTidyPlugin
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
LIT=${LIT:-/usr/lib/llvm-19/build/utils/lit/lit.py}
python3 "$LIT" -sv --param build="$BUILD_DIR" test/checks
python3 test/stress/run_stress.py --torch-tidy "$BUILD_DIR/bin/torch-tidy" --jobs "$JOBS"
