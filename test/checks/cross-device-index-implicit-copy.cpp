// RUN: %check_clang_tidy %s libtorch-cross-device-index %t -- \
// RUN:   -config="{CheckOptions: {libtorch-cross-device-index.WarnOnImplicitIndexCopy: true}}" \
// RUN:   -- %mock_torch

#include <torch/torch.h>

// With the option, the allowed CPU index into a CUDA tensor is reported too:
// each call copies the index to the device and synchronises.
void implicitCopy(torch::Device device) {
  auto x = torch::zeros({4}).cuda();
  auto idx = torch::arange(2);
  x.index({idx});
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'idx' is on the CPU but 'x' is on CUDA; 'index' copies the index to the device and synchronises on every call; create the index on the device once [libtorch-cross-device-index]
  x[idx];
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'idx' is on the CPU but 'x' is on CUDA; 'operator[]' copies the index
  x.index_put_({idx}, x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'idx' is on the CPU but 'x' is on CUDA; 'index_put_' copies the index
  auto y = torch::ones({4}).to(device);
  y[idx];
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'idx' is on the CPU but 'y' is on the device held by 'device'; 'operator[]' copies the index

  // Not reported: the index is on the device already, or both on the CPU,
  // or a 0-dim CPU tensor.
  x.index({idx.cuda()});
  torch::zeros({4}).index({idx});
  x[torch::arange(4).sum()];
  // No fix-it for the copy: the index is made on the device instead.
  // CHECK-FIXES: x.index({idx});
}
