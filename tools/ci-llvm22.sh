#!/usr/bin/env bash
# CI's second LLVM: builds torch-tidy against LLVM 22 into ${BUILD_DIR:-build-22}
# and runs the lit check and tool suites (driver and clang-tidy-22 -load
# plugin) and the unit tests. The runtime and the integration suite do not
# depend on the LLVM version and run only in the LLVM 19 build (tools/test.sh).
# torch-clangd is not built here: its suite is not run, and linking clangd
# would cost the time this part has to fit in (.ci/run).
# Arguments are passed to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
LLVM_VERSION=22 tools/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build-22}
cmake -S . -B "$BUILD_DIR" -G Ninja -DTORCHTIDY_LLVM_VERSION=22 \
  -DTORCHTIDY_BUILD_RUNTIME=OFF -DTORCHTIDY_INTEGRATION=OFF \
  -DTORCHTIDY_BUILD_CLANGD=OFF
cmake --build "$BUILD_DIR" -j "$(nproc)"
# The tool suite runs its `llvm` tests (test/tools/lit.local.cfg.py): the
# plain ones are left out here, each run by the LLVM 19 part:
# - identical-findings.test compares the driver's run modes (traversal
#   scope, preamble and results caches, project runs) over every check input:
#   four of this part's minutes. What LLVM 22 changes in those modes is in
#   DriverCompat, which the rest of the tool suite runs here
#   (preamble-cache.test, results-cache.test, project-mode.test,
#   determinism.test...).
# - The tests that run no code built here: format.test (clang-format-19 on
#   the sources), action-lint.test (actionlint on action.yml), ci-run.test
#   (.ci/run on stand-ins) and stress-runner.test (the runner on a fake
#   torch-tidy).
# - The wrappers' own tests, action.test and pre-commit-hooks.test: the
#   GitHub Action's and pre-commit's scripts around the driver; the driver
#   options they pass (--changed-lines, --sarif, file arguments, the exit
#   status) are tested here by changed-lines.test, sarif.test and
#   exit-status.test, and docs-ci.test runs the documented commands,
#   CMAKE_CXX_CLANG_TIDY's among them.
LIT_OPTS="--param tool_tests=llvm ${LIT_OPTS:-}" \
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j "${CTEST_JOBS:-$(nproc)}" \
  -R 'lit.checks|lit.tools|unit' "$@"
