#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test
# (lit suites on mock headers, the integration suite on real LibTorch
# headers, GoogleTest, benchmark smoke runs) through ctest.
# Arguments are passed to ctest (e.g. -R lit.checks).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
# The SARIF schema validator (ajv, pinned by test/sarif/package-lock.json).
if [ ! -d test/sarif/node_modules/ajv-draft-04 ]; then
  (cd test/sarif && npm ci --no-audit --no-fund --loglevel=error)
fi
tools/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure "$@"
