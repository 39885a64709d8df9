// torch-clangd walks only the edited file's declarations: a module declared
// in a header is checked through its constructor defined in the .cpp, and
// reported at the constructor's writes (with the member's declaration in
// the header as a note). Mock headers: quick.
// RUN: rm -rf %t && mkdir -p %t/xdg
// RUN: cp %s %t/model.cpp && cp %S/Inputs/header-module.h %t/model.h
// RUN: cp %S/Inputs/libtorch.clangd %t/.clangd
// RUN: %python %S/Inputs/compile_db.py %t %t/model.cpp %mock_torch
// RUN: env XDG_CONFIG_HOME=%t/xdg timeout 300 %torch_clangd --check=%t/model.cpp --check-warnings --check-locations=false 2>&1 | FileCheck %s --implicit-check-not='] Line'

#include "model.h"

NetImpl::NetImpl() {
  fc1 = register_module("fc1", torch::nn::Linear(4, 4));
  fc2 = torch::nn::Linear(4, 2);
  mask = torch::ones({4});
}

// CHECK: [libtorch-unregistered-submodule] Line 15: submodule 'fc2' of module 'NetImpl' is never registered
// CHECK: [libtorch-unregistered-buffer] Line 16: tensor member 'mask' of module 'NetImpl' is never registered
// CHECK: All checks completed, 0 errors
