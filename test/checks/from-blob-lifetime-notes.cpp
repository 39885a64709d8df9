// RUN: %check_clang_tidy %s libtorch-from-blob-lifetime %t -- -- %mock_torch

#include <torch/torch.h>
#include <vector>

// The notes name the op that may not copy, the locals on the way, where the
// buffer dies and the use after it.
torch::Tensor throughTo(torch::Device d) {
  std::vector<float> v(4);
  auto t = torch::from_blob(v.data(), {4}).to(d);
  // CHECK-NOTES: :[[@LINE-1]]:12: warning: tensor from 'from_blob' over 'v' (a local 'std::vector<float>') is returned without a copy
  // CHECK-NOTES: :[[@LINE-2]]:44: note: 'to' does not copy when the tensor already has that device and dtype
  // CHECK-NOTES: :[[@LINE-3]]:8: note: the tensor is kept in 't'
  return t;
}
torch::Tensor deleted(int n) {
  float *p = new float[n];
  auto t = torch::from_blob(p, {n});
  // CHECK-NOTES: :[[@LINE-1]]:12: warning: tensor from 'from_blob' over the memory 'p' points to is used after 'p' is freed
  // CHECK-NOTES: :[[@LINE-2]]:8: note: the tensor is kept in 't'
  delete[] p;
  // CHECK-NOTES: :[[@LINE-1]]:3: note: 'p' is freed here
  return t.sum();
  // CHECK-NOTES: :[[@LINE-1]]:10: note: the tensor is used here
}
