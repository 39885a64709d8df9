// A real LSP session over stdio, as an editor runs it: the libtorch warning
// arrives in publishDiagnostics, and codeAction at its range offers the
// fix-it, which edits the constructor rather than the flagged declaration.
// The mock LibTorch keeps the session fast; a hang fails at the timeout.
// RUN: rm -rf %t && mkdir -p %t/xdg
// RUN: cp %s %t/net.cpp
// RUN: cp %S/Inputs/libtorch.clangd %t/.clangd
// RUN: %python %S/Inputs/compile_db.py %t %t/net.cpp %mock_torch
// RUN: env XDG_CONFIG_HOME=%t/xdg timeout 300 %python %S/Inputs/lsp_client.py \
// RUN:   --file %t/net.cpp --timeout 120 --stderr %t/clangd.log -- \
// RUN:   %torch_clangd --log=error --background-index=false > %t/out.txt
// RUN: FileCheck %s --input-file=%t/out.txt

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(4, 8));
    fc2 = torch::nn::Linear(8, 2);
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
// The warning sits on the declaration, its note and fix-it on the assignment.
// CHECK:      diagnostics published: 1
// CHECK-NEXT: diagnostic [[#@LINE-4]]:35-[[#@LINE-4]]:38 clang-tidy [libtorch-unregistered-submodule]: Submodule 'fc2' of module 'NetImpl' is never registered; {{.*}} (fix available)
// CHECK-NEXT:   related [[#@LINE-7]]:5-[[#@LINE-7]]:8: 'fc2' is assigned here, without registration
// CHECK-NEXT: codeActions at [[#@LINE-6]]:35-[[#@LINE-6]]:38 [libtorch-unregistered-submodule]: 1
// CHECK-NEXT: action quickfix preferred: submodule 'fc2' of module 'NetImpl' is never registered; {{.*}}
// CHECK-NEXT:   edit this file [[#@LINE-10]]:11-[[#@LINE-10]]:11: "register_module(\"fc2\", "
// CHECK-NEXT:   edit this file [[#@LINE-11]]:34-[[#@LINE-11]]:34: ")"
// CHECK-NEXT:   result [[#@LINE-12]]: fc2 = register_module("fc2", torch::nn::Linear(8, 2));
// CHECK-NEXT: server exited with status 0
