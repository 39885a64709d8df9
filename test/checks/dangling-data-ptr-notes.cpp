// RUN: %check_clang_tidy %s libtorch-dangling-data-ptr %t -- -- %mock_torch

#include <torch/torch.h>

void kernel(float *p, int64_t n);

// The notes name the op that may allocate, where the storage dies and the
// first use after it.
void mayAllocate(torch::Tensor x) {
  float *p = x.to(torch::kCPU).data_ptr<float>();
  // CHECK-NOTES: :[[@LINE-1]]:32: warning: 'data_ptr' of a temporary tensor that 'to' may have freshly allocated is kept in 'p'
  // CHECK-NOTES: :[[@LINE-2]]:16: note: 'to' makes a new tensor here whenever it has to convert, move or copy the data
  kernel(p, 3);
  // CHECK-NOTES: :[[@LINE-1]]:10: note: 'p' is used here, after the tensor is freed
}
void reassigned(torch::Tensor x) {
  torch::Tensor t = x.clone();
  float *p = t.data_ptr<float>();
  // CHECK-NOTES: :[[@LINE-1]]:16: warning: 'data_ptr' of 't' is kept in 'p', which is used after 't' is reassigned
  t = x * 2;
  // CHECK-NOTES: :[[@LINE-1]]:3: note: 't' is reassigned here
  kernel(p, 3);
  // CHECK-NOTES: :[[@LINE-1]]:10: note: 'p' is used here
}
void outOfScope(torch::Tensor x) {
  float *p;
  {
    torch::Tensor t = x.clone();
    p = t.data_ptr<float>();
    // CHECK-NOTES: :[[@LINE-1]]:11: warning: 'data_ptr' of 't' is kept in 'p', which is used after 't' goes out of scope
  }
  // CHECK-NOTES: :[[@LINE-1]]:3: note: 't' goes out of scope here
  kernel(p, 3);
  // CHECK-NOTES: :[[@LINE-1]]:10: note: 'p' is used here
}
