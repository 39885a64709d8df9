// RUN: %check_clang_tidy %s libtorch-dangling-data-ptr %t -- -- %mock_torch

#include <torch/torch.h>
#include <cstring>
#include <vector>

void kernel(float *p, int64_t n);

// The known bug of koba-jon/pytorch_cpp's DAGMM save_params: a CPU copy's
// pointer kept past its statement. The full message once.
void tempKept(torch::Tensor mu, int64_t n) {
  float *p = mu.to(torch::kCPU).data_ptr<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'data_ptr' of a temporary tensor that 'to' may have freshly allocated is kept in 'p', but the temporary is freed at the end of the statement: 'p' then reads freed memory (on CUDA an illegal memory access, or silently another tensor's data); bind the tensor to a named torch::Tensor first [libtorch-dangling-data-ptr]
  // CHECK-FIXES: torch::Tensor mu_cpu = mu.to(torch::kCPU);
  // CHECK-FIXES-NEXT: float *p = mu_cpu.data_ptr<float>();
  for (int64_t i = 0; i < n; i++)
    p[i] = 0;
}

void contiguousKept(torch::Tensor x) {
  auto *p = x.contiguous().data_ptr<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'data_ptr' of a temporary tensor that 'contiguous' may have freshly allocated is kept in 'p'
  // CHECK-FIXES: torch::Tensor x_contig = x.contiguous();
  // CHECK-FIXES-NEXT: auto *p = x_contig.data_ptr<float>();
  kernel(p, x.numel());
}

// An op that always allocates.
void arithmetic(torch::Tensor a, torch::Tensor b) {
  float *p = a.add(b).data_ptr<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'data_ptr' of a temporary tensor that 'add' allocated is kept in 'p', but the temporary is freed at the end of the statement
  // CHECK-FIXES: torch::Tensor a_add = a.add(b);
  // CHECK-FIXES-NEXT: float *p = a_add.data_ptr<float>();
  kernel(p, 3);
}

// data<T>() is the old spelling of data_ptr<T>(); an assignment keeps it too.
void assigned(torch::Tensor x) {
  float *d = nullptr;
  d = x.cpu().data<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'data' of a temporary tensor that 'cpu' may have freshly allocated is kept in 'd'
  kernel(d, 2);
}

// Stored where it outlives the function: no fix-it (a local would not do).
struct Holder {
  float *ptr_;
  void set(torch::Tensor x) { ptr_ = x.clone().data_ptr<float>(); }
  // CHECK-MESSAGES: :[[@LINE-1]]:48: warning: 'data_ptr' of a temporary tensor that 'clone' allocated is stored in member 'ptr_', but the temporary is freed at the end of the statement: the pointer reads freed memory (on CUDA an illegal memory access, or silently another tensor's data); keep the tensor in a torch::Tensor that lives as long as the pointer [libtorch-dangling-data-ptr]
};
std::vector<float *> pointers;
void pushed(torch::Tensor x) { pointers.push_back(x.cpu().data_ptr<float>()); }
// CHECK-MESSAGES: :[[@LINE-1]]:59: warning: 'data_ptr' of a temporary tensor that 'cpu' may have freshly allocated is stored in 'pointers', which outlives the function
float *returned(torch::Tensor x) { return x.contiguous().data_ptr<float>(); }
// CHECK-MESSAGES: :[[@LINE-1]]:58: warning: 'data_ptr' of a temporary tensor that 'contiguous' may have freshly allocated is returned
// A tensor that from_blob makes of the pointer keeps it too.
torch::Tensor wrapped(torch::Tensor x) {
  float *p = x.cpu().data_ptr<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'data_ptr' of a temporary tensor that 'cpu' may have freshly allocated is kept in 'p'
  return torch::from_blob(p, {3});
}

// A named local tensor that owns its storage.
float *localReturned() {
  torch::Tensor t = torch::zeros({3});
  return t.data_ptr<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'data_ptr' of local tensor 't' is returned, but 't' frees its storage when it goes out of scope: the pointer then reads freed memory (on CUDA an illegal memory access, or silently another tensor's data); keep the tensor alive as long as the pointer [libtorch-dangling-data-ptr]
}
void reassigned(torch::Tensor x) {
  torch::Tensor t = x.clone();
  float *p = t.data_ptr<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'data_ptr' of 't' is kept in 'p', which is used after 't' is reassigned and its old storage freed: 'p' then reads freed memory (on CUDA an illegal memory access, or silently another tensor's data); take the pointer again after the assignment [libtorch-dangling-data-ptr]
  t = x * 2;
  kernel(p, 3);
}
// Reassigned in a loop: the pointer taken before it reads the freed storage
// on the next iteration.
void reassignedInLoop(torch::Tensor x) {
  torch::Tensor t = x.clone();
  float *p = t.data_ptr<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'data_ptr' of 't' is kept in 'p', which is used after 't' is reassigned and its old storage freed
  for (int i = 0; i < 3; ++i) {
    kernel(p, 3);
    t = t * 2;
  }
}
void outOfScope(torch::Tensor x) {
  float *p;
  {
    torch::Tensor t = x.clone();
    p = t.data_ptr<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'data_ptr' of 't' is kept in 'p', which is used after 't' goes out of scope and frees its storage: 'p' then reads freed memory (on CUDA an illegal memory access, or silently another tensor's data); keep 't' alive as long as 'p' is used [libtorch-dangling-data-ptr]
  }
  kernel(p, 3);
}

// Not reported: used inside the full-expression.
float firstValue(torch::Tensor x) { return x.cpu().data_ptr<float>()[0]; }
void copied(torch::Tensor x, float *dst) {
  std::memcpy(dst, x.cpu().data_ptr(), 4);
  kernel(x.contiguous().data_ptr<float>(), x.numel());
}
std::vector<float> toVector(torch::Tensor x) {
  return std::vector<float>(x.cpu().data_ptr<float>(),
                            x.cpu().data_ptr<float>() + 3);
}
// Not reported: views of a named tensor that is still alive.
void views(torch::Tensor x) {
  float *p = x.narrow(0, 0, 2).data_ptr<float>();
  kernel(p, 2);
  float *q = x[0].data_ptr<float>();
  kernel(q, 2);
  float *r = x.select(0, 1).data_ptr<float>();
  kernel(r, 2);
}
// Not reported: a named local that outlives every use.
void named(torch::Tensor x) {
  torch::Tensor c = x.contiguous();
  float *p = c.data_ptr<float>();
  kernel(p, c.numel());
  auto t = x.cpu();
  for (int i = 0; i < 3; ++i) {
    float *q = t.data_ptr<float>();
    kernel(q, 3);
  }
}
// Not reported: a pointer that is never used after its statement.
void unused(torch::Tensor x) { float *p = x.cpu().data_ptr<float>(); }
// Not reported: a local that shares its storage with a parameter: the
// assignment does not free it.
void shared(torch::Tensor x) {
  torch::Tensor y = x;
  float *p = y.data_ptr<float>();
  y = x + 1;
  kernel(p, 3);
}
// Not reported: the storage belongs to the caller.
float *ofParameter(torch::Tensor &x) { return x.data_ptr<float>(); }
