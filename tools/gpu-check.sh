#!/usr/bin/env bash
# GPU check of the torch-tidy runtime shim (lib/runtime), for a machine with an
# NVIDIA GPU, nvcc, and python3 with a CUDA build of torch 2.x.
#
#   tools/gpu-check.sh [RESULTS_FILE]
#
# Configures lib/runtime standalone against the LibTorch that ships inside the
# Python torch package (torch.utils.cmake_prefix_path), with the CUDA kernels
# and the CUDA branch of the LibTorch adapter; builds it; runs every runtime
# test (the CUDA ones must run, not skip) and the CUDA benchmark; builds the
# bundled examples and runs them on the GPU (the buggy ones must fail, the
# fixed ones must run); writes a
# report to RESULTS_FILE, or to $OUT/gpu-check.txt when $OUT is a directory,
# or to $OUT itself, or to build-gpu/gpu-check.txt. Exits non-zero when a step
# fails. The C++ ABI and other LibTorch flags come from the Torch CMake
# package, never from this script.
#
# Environment: CUDACXX (nvcc to use), TORCHTIDY_GPU_BUILD_DIR (default
# build-gpu), TORCHTIDY_CUDA_ARCH (e.g. 90; default: the GPU's), PYTHON,
# TORCHTIDY_GTEST_SOURCE_DIR (GoogleTest sources to build, for a machine
# without /usr/src/googletest or a GTest package), CMAKE_PREFIX_PATH (read by
# CMake as usual: where a Google Benchmark package is, for the benchmarks).
#
# A build step that fails does not stop the script: the targets that built
# are still run, so one broken file costs one step, not the whole check.
set -u -o pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TORCHTIDY_GPU_BUILD_DIR:-$repo/build-gpu}
python=${PYTHON:-python3}

if [[ $# -ge 1 && -n $1 ]]; then
  results=$1
elif [[ -n ${OUT:-} && -d ${OUT} ]]; then
  results=$OUT/gpu-check.txt
elif [[ -n ${OUT:-} ]]; then
  results=$OUT
else
  results=$build/gpu-check.txt
fi
mkdir -p "$(dirname "$results")" "$build"
: >"$results"

failures=()
log() { printf '%s\n' "$*" | tee -a "$results"; }
section() { log ""; log "==== $* ===="; }
# step NAME CMD...: runs CMD, appends its output to the report, records failure.
step() {
  local name=$1
  shift
  section "$name"
  log "\$ $*"
  local start=$SECONDS
  "$@" >>"$results" 2>&1
  local rc=$?
  log "-> exit $rc after $((SECONDS - start)) s"
  if [[ $rc -ne 0 ]]; then
    failures+=("$name (exit $rc)")
  fi
  return $rc
}
# run_no_skip CMD...: runs a GoogleTest binary; a skipped test fails the step.
# shellcheck disable=SC2317  # called through step "$@"
run_no_skip() {
  local output
  output=$("$@" 2>&1)
  local rc=$?
  printf '%s\n' "$output"
  if grep -q '\[  SKIPPED \]' <<<"$output"; then
    echo "error: tests were skipped on a machine with a GPU"
    return 1
  fi
  return "$rc"
}
finish() {
  section "summary"
  if [[ ${#failures[@]} -eq 0 ]]; then
    log "PASS: all steps succeeded"
    log "results: $results"
    exit 0
  fi
  log "FAIL: ${#failures[@]} step(s) failed:"
  local f
  for f in "${failures[@]}"; do log "  - $f"; done
  log "results: $results"
  exit 1
}

section "torch-tidy runtime GPU check"
log "date:   $(date -u +%Y-%m-%dT%H:%M:%SZ)"
log "host:   $(uname -srm)"
log "repo:   $repo ($(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout'))"
log "build:  $build"

section "GPU"
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv >>"$results" 2>&1 ||
    nvidia-smi >>"$results" 2>&1
else
  log "nvidia-smi not found"
fi

section "Python torch"
torch_info=$("$python" - <<'EOF' 2>&1
import torch
print("version", torch.__version__)
print("cuda", torch.version.cuda or "none")
print("available", int(torch.cuda.is_available()))
print("prefix", torch.utils.cmake_prefix_path)
print("cxx11_abi", int(torch._C._GLIBCXX_USE_CXX11_ABI))
if torch.cuda.is_available():
    major, minor = torch.cuda.get_device_capability(0)
    print("capability", f"{major}{minor}")
    print("device", torch.cuda.get_device_name(0))
EOF
)
rc=$?
log "$torch_info"
if [[ $rc -ne 0 ]]; then
  failures+=("import torch with $python")
  finish
fi
field() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' <<<"$torch_info"; }
torch_prefix=$(field prefix)
torch_cuda=$(field cuda)
capability=$(field capability)
if [[ $torch_cuda == none ]]; then
  log "this torch has no CUDA: the CUDA branch of the adapter cannot be checked"
  failures+=("torch without CUDA")
fi
if [[ $(field available) != 1 ]]; then
  log "torch sees no GPU: the CUDA tests would only skip"
  failures+=("no GPU visible to torch")
fi

section "toolchain"
# The driver runs code from toolkits up to its own CUDA version; prefer an nvcc
# it supports, and among those one with torch's major version.
driver_cuda=""
if command -v nvidia-smi >/dev/null 2>&1; then
  driver_cuda=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9][0-9.]*\).*/\1/p' | head -n1)
fi
log "driver supports CUDA: ${driver_cuda:-unknown}"
nvcc_major() { "$1" --version 2>/dev/null | sed -n 's/.*release \([0-9]*\)\..*/\1/p'; }
candidates=()
[[ -n ${CUDACXX:-} ]] && candidates+=("$CUDACXX")
command -v nvcc >/dev/null 2>&1 && candidates+=("$(command -v nvcc)")
for c in /usr/local/cuda/bin/nvcc /usr/local/cuda-*/bin/nvcc; do
  [[ -x $c ]] && candidates+=("$c")
done
nvcc=""
if [[ -n ${CUDACXX:-} ]]; then
  nvcc=$CUDACXX # explicit choice wins
else
  for want in match supported any; do
    for c in ${candidates[@]+"${candidates[@]}"}; do
      major=$(nvcc_major "$c")
      [[ -z $major ]] && continue
      case $want in
      match) [[ $major == "${torch_cuda%%.*}" && ( -z $driver_cuda || $major -le ${driver_cuda%%.*} ) ]] || continue ;;
      supported) [[ -z $driver_cuda || $major -le ${driver_cuda%%.*} ]] || continue ;;
      esac
      nvcc=$c
      break 2
    done
  done
fi
if [[ -z $nvcc ]]; then
  log "nvcc not found (set CUDACXX)"
  failures+=("nvcc not found")
  finish
fi
nvcc_version=$("$nvcc" --version | sed -n 's/.*release \([0-9][0-9.]*\),.*/\1/p')
log "nvcc candidates: ${candidates[*]:-none}"
log "nvcc:   $nvcc ($nvcc_version)"
log "cmake:  $(cmake --version | head -n1)"
if [[ $torch_cuda != none && ${torch_cuda%%.*} != "${nvcc_version%%.*}" ]]; then
  # The kernels use only the CUDA runtime; another toolkit than torch's works
  # as long as the driver supports it. Worth knowing when something fails.
  log "note: torch was built with CUDA $torch_cuda, nvcc is $nvcc_version"
fi
if [[ -n $driver_cuda && ${nvcc_version%%.*} -gt ${driver_cuda%%.*} ]]; then
  log "warning: nvcc $nvcc_version is newer than the driver's CUDA $driver_cuda; kernels may not load"
fi
arch=${TORCHTIDY_CUDA_ARCH:-$capability}
if [[ -z $arch ]]; then
  arch=90
fi
log "arch:   sm_$arch"
generator=()
if command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi
jobs=$(nproc 2>/dev/null || echo 4)

# Torch's CMake config picks CUDA architectures itself unless told; keep it to
# this GPU so that it does not ask nvcc for architectures it dropped.
export TORCH_CUDA_ARCH_LIST="${arch:0:${#arch}-1}.${arch: -1}"
cuda_root=$(cd "$(dirname "$nvcc")/.." && pwd)
# Torch's config finds CUDA through PATH and CUDA_TOOLKIT_ROOT_DIR (FindCUDA,
# torch < 2.4) or CUDAToolkit_ROOT (FindCUDAToolkit): point all at one toolkit.
export PATH="$cuda_root/bin:$PATH"
export CUDACXX="$nvcc"
# What every configure of this script (the runtime's, the examples') gives
# CMake: the generator, this LibTorch, this toolkit, this GPU.
torch_cmake_args=(${generator[@]+"${generator[@]}"}
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_PREFIX_PATH="$torch_prefix"
  -DCMAKE_CUDA_COMPILER="$nvcc"
  -DCUDAToolkit_ROOT="$cuda_root"
  -DCUDA_TOOLKIT_ROOT_DIR="$cuda_root"
  -DCMAKE_CUDA_ARCHITECTURES="$arch")

step "configure (lib/runtime standalone)" \
  cmake -S "$repo/lib/runtime" -B "$build" "${torch_cmake_args[@]}" \
  ${TORCHTIDY_GTEST_SOURCE_DIR:+"-DTORCHTIDY_GTEST_SOURCE_DIR=$TORCHTIDY_GTEST_SOURCE_DIR"} \
  -DTORCHTIDY_RUNTIME_CUDA=ON || finish

section "configuration"
grep -E '^(TORCHTIDY_[A-Z_]+|Torch_DIR|CMAKE_CUDA_ARCHITECTURES|CMAKE_CUDA_COMPILER):' \
  "$build/CMakeCache.txt" | tee -a "$results"
if ! grep -q "CUDA tensors checked by the kernels ON" "$results"; then
  log "the LibTorch adapter's CUDA branch is NOT built (see the configure output above)"
  failures+=("CUDA adapter not configured")
fi

keep_going=(-k)
if [[ ${#generator[@]} -gt 0 ]]; then
  keep_going=(-k 0)
fi
step "build" cmake --build "$build" -j "$jobs" -- "${keep_going[@]}" ||
  log "the build failed: the steps below run what was built"

# ctest runs everything (CPU suites, install test, smoke benchmarks).
step "ctest" ctest --test-dir "$build" --output-on-failure -j "$jobs"

# The CUDA suites once more, where a skip is a failure: there is a GPU.
step "raw CUDA kernel tests (no skips allowed)" run_no_skip "$build/test/runtime_cuda_tests"
# TORCHTIDY_CHECK_LAUNCH() against the real CUDA runtime: a failing launch is
# reported at its site, with and without TORCHTIDY_SYNC=1.
if [[ -x $build/test/runtime_launch_tests ]]; then
  step "kernel launch checks (no skips allowed)" \
    run_no_skip "$build/test/runtime_launch_tests"
fi
if [[ -x $build/test/runtime_tests_debug ]]; then
  step "LibTorch CUDA tensor tests (no skips allowed)" \
    run_no_skip "$build/test/runtime_tests_debug" --gtest_filter='CudaTensors.*'
  step "LibTorch tests, all (debug macros)" "$build/test/runtime_tests_debug"
  step "LibTorch tests, all (release macros)" "$build/test/runtime_tests_release"
else
  log "runtime_tests_debug was not built (see configure output: C++ ABI / GoogleTest)"
  failures+=("LibTorch-linked tests not built")
fi

if [[ -x $build/bench/runtime_cuda_bench ]]; then
  step "CUDA benchmark: kernel vs device copy" \
    "$build/bench/runtime_cuda_bench" --benchmark_min_time=0.5
else
  log "runtime_cuda_bench was not built (Google Benchmark missing?)"
  failures+=("CUDA benchmark not built")
fi
if [[ -x $build/bench/runtime_bench ]]; then
  step "CPU benchmark" "$build/bench/runtime_bench" --benchmark_min_time=0.2
fi

# The bundled examples on the GPU: what their comments say happens there does.
# Each buggy program must fail (an unregistered submodule left on the CPU, a
# kernel that reads outside its input) and each fixed twin must run.
# example_build DIR NAME: configures and builds examples/DIR in $build/NAME.
# shellcheck disable=SC2317  # called through step "$@"
example_build() {
  cmake -S "$repo/examples/$1" -B "$build/$2" "${torch_cmake_args[@]}" &&
    cmake --build "$build/$2" -j "$jobs"
}
# expect_failure timeout N CMD...: runs CMD under timeout; succeeds when CMD
# fails (and says how). Running past N is no such failure: a hang is not
# the error the example's comments promise.
# shellcheck disable=SC2317  # called through step "$@"
expect_failure() {
  "$@"
  local rc=$?
  if [[ $rc -eq 0 ]]; then
    echo "error: the buggy example ran to the end on the GPU"
    return 1
  fi
  if [[ $rc -eq 124 ]]; then
    echo "error: the buggy example did not end within its time limit"
    return 1
  fi
  echo "the buggy example failed as expected (exit $rc)"
}
examples=(buggy:recommender fixed:recommender
  cuda-extension/buggy:demo cuda-extension/fixed:demo)
for entry in "${examples[@]}"; do
  dir=${entry%%:*}
  name=examples-${dir//\//-}
  step "example $dir: build" example_build "$dir" "$name" || continue
  program=$build/$name/${entry#*:}
  if [[ $dir == *buggy ]]; then
    step "example $dir: fails on the GPU" expect_failure timeout 120 "$program"
  else
    step "example $dir: runs on the GPU" timeout 120 "$program"
  fi
done

finish
