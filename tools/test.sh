#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test
# (lit suites on mock headers, the integration suite on real LibTorch
# headers, GoogleTest, benchmark smoke runs) through ctest.
# Arguments are passed to ctest (e.g. -R lit.checks).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure "$@"
