#!/usr/bin/env bash
# Configures and builds torch-tidy into ${BUILD_DIR:-build}. Extra CMake
# arguments come from $CMAKE_ARGS (e.g. -DTORCHTIDY_LLVM_VERSION=22).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
# shellcheck disable=SC2086
cmake -S . -B "$BUILD_DIR" -G Ninja ${CMAKE_ARGS:-}
cmake --build "$BUILD_DIR" -j "$(nproc)"
