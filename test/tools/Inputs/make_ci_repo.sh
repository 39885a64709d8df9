#!/usr/bin/env bash
# make_ci_repo.sh DIR MOCK_DIR: a scratch CMake project on the mock LibTorch
# headers, in a git repository whose origin has `main`, checked out on a
# pull-request branch that adds an unregistered submodule on one line.
set -euo pipefail
dir=$1 mock=$2
mkdir -p "$dir/origin.git" "$dir/repo"
git init -q --bare "$dir/origin.git"
cd "$dir/repo"
git init -q -b main
git config user.email ci@example.org
git config user.name ci
cat > CMakeLists.txt <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(citest LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
add_library(model OBJECT model.cpp)
target_include_directories(model SYSTEM PRIVATE "$mock")
CMAKE
cat > model.cpp <<'CPP'
#include <torch/torch.h>
struct NetImpl : torch::nn::Module {
  NetImpl() {
    first = register_module("first", torch::nn::Linear(2, 2));
  }
  torch::nn::Linear first{nullptr};
  torch::Tensor old_mask;
};
CPP
git add -A && git commit -q -m base
git remote add origin "$dir/origin.git"
git push -q origin main
git checkout -q -b feature
# The pull request: one new unregistered submodule (member on line 7).
sed -i 's|^  torch::nn::Linear first{nullptr};|  torch::nn::Linear first{nullptr};\n  torch::nn::Linear second{nullptr};|' model.cpp
sed -i 's|^    first = register_module("first", torch::nn::Linear(2, 2));|    first = register_module("first", torch::nn::Linear(2, 2));\n    second = torch::nn::Linear(2, 2);|' model.cpp
git commit -q -am "add a second layer"
