#!/usr/bin/env bash
# Installs what torch-tidy needs on Debian 12 (as root), skipping apt when
# everything is already there. LLVM_VERSION=22 installs the LLVM 22 set.
set -euo pipefail

LLVM_VERSION=${LLVM_VERSION:-19}
packages=(
  cmake ninja-build python3 git
  # The code base checks its own formatting (test/tools/format.test).
  "clang-format-${LLVM_VERSION}"
  "clang-${LLVM_VERSION}" "clang-tidy-${LLVM_VERSION}" "clangd-${LLVM_VERSION}"
  "libclang-${LLVM_VERSION}-dev" "llvm-${LLVM_VERSION}-dev" "llvm-${LLVM_VERSION}-tools"
  libtorch-dev libgtest-dev libgmock-dev libbenchmark-dev googletest
  # torch-clangd links clangd, whose remote index needs gRPC and protobuf.
  libgrpc++-dev libprotobuf-dev
  # The sanitizer runtimes (tools/sanitize.sh): only recommended by clang.
  "libclang-rt-${LLVM_VERSION}-dev"
  # The Debian package (ninja deb, test/package): dpkg-shlibdeps finds its
  # dependencies, readelf what the binaries link; groff renders the man page.
  dpkg-dev binutils groff-base
  # .pre-commit-hooks.yaml is tested with the real pre-commit, torch-clangd
  # with Neovim's LSP client (test/tools/pre-commit-hooks.test,
  # test/clangd/neovim.test).
  pre-commit neovim
)

# Node.js validates SARIF output against the schema in the tests.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing ${missing[*]}; run as root (or with sudo)" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
