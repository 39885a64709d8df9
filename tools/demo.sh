#!/usr/bin/env bash
# The demo: installs what is missing, builds torch-tidy, and runs it over the
# bundled example project (examples/buggy) through its compile_commands.json,
# then the CUDA extension (examples/cuda-extension/buggy) when nvcc is there.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh
BUILD_DIR=${BUILD_DIR:-build}
# analyse EXAMPLE: configures it and runs torch-tidy over its files.
analyse() {
  local example=$1
  cmake -S "$example" -B "$BUILD_DIR/$example" -G Ninja >/dev/null
  mapfile -t files < <(python3 -c '
import json, sys
for e in json.load(open(sys.argv[1])):
    print(e["file"])' "$BUILD_DIR/$example/compile_commands.json")
  echo "torch-tidy: analysing ${#files[@]} files of $example (the first run precompiles <torch/torch.h>" \
    "into $BUILD_DIR/$example/torch-tidy-cache, 10-20 s; then about 2 s a file)"
  "$BUILD_DIR/bin/torch-tidy" -p "$BUILD_DIR/$example" --checks='-*,libtorch-*' \
    --header-filter="$(pwd)/$example/.*" "${files[@]}"
}
analyse "${1:-examples/buggy}"
# The CUDA extension (its ops.cu is compiled by nvcc), when the toolkit is
# there: CMake needs nvcc to configure a CUDA project.
if [ -z "${1:-}" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
  analyse examples/cuda-extension/buggy
fi
