// clangd 19 runs only the clang-tidy checks its table lists as fast
// (FastCheckFilter: Strict by default). torch-clangd lists the libtorch checks
// as fast and leaves every other check and the user's settings alone.
// RUN: rm -rf %t && mkdir -p %t/xdg
// RUN: cp %s %t/net.cpp
// RUN: %python %S/Inputs/compile_db.py %t %t/net.cpp %mock_torch

// The strictest filter, naming a check: ours runs without a latency warning,
// while a slow upstream check keeps clangd's own verdict.
// RUN: cp %S/Inputs/strict.clangd %t/.clangd
// RUN: env XDG_CONFIG_HOME=%t/xdg timeout 120 %torch_clangd --check=%t/net.cpp \
// RUN:   --check-warnings --check-locations=false 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STRICT --implicit-check-not='Latency of clang-tidy check'
// STRICT: config warning at {{.*}}.clangd:3:{{[0-9]+}}: clang-tidy check 'misc-const-correctness' is slow. It will only run if ClangTidy.FastCheckFilter is None
// STRICT: [libtorch-unregistered-submodule] Line 32: submodule 'fc2' of module 'NetImpl' is never registered;
// STRICT: All checks completed, 0 errors

// The user's Remove still wins.
// RUN: cp %S/Inputs/remove.clangd %t/.clangd
// RUN: env XDG_CONFIG_HOME=%t/xdg timeout 120 %torch_clangd --check=%t/net.cpp \
// RUN:   --check-warnings --check-locations=false 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMOVED --implicit-check-not=libtorch-unregistered-submodule
// REMOVED: All checks completed, 0 errors

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(4, 8));
    fc2 = torch::nn::Linear(8, 2);
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
