// libtorch-from-blob-dtype on the real LibTorch headers: at::from_blob
// brought into torch:: by a using-declaration, TensorOptions built from a
// ScalarType through its implicit constructor, torch::kFloat64 and friends
// as constexpr aliases of c10::ScalarType, c10::set_default_dtype.
// RUN: %check_clang_tidy %s libtorch-from-blob-dtype %t -- -- %torch_includes

#include <torch/torch.h>

#include <cstdint>
#include <vector>

torch::Tensor doublesAsDefault(std::vector<double> &v) {
  return torch::from_blob(v.data(), {static_cast<int64_t>(v.size())});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'v', whose elements are 'double' (8 bytes), as float32, the default dtype: the bytes are reinterpreted, so the values are wrong; pass torch::kFloat64 [libtorch-from-blob-dtype]
  // CHECK-FIXES: return torch::from_blob(v.data(), {static_cast<int64_t>(v.size())}, torch::kFloat64);
}

torch::Tensor intsAsLong(int *p, int64_t n) {
  return torch::from_blob(p, {n}, torch::TensorOptions().dtype(torch::kLong));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'p', whose elements are 'int' (4 bytes), as int64: {{.*}} past its end; use torch::kInt32 [libtorch-from-blob-dtype]
}

torch::Tensor doublesWithDeleter(double *p, int64_t n) {
  return torch::from_blob(p, {n}, [](void *q) { delete[] static_cast<double *>(q); }, torch::kFloat32);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'p', whose elements are 'double' (8 bytes), as float32: the bytes are reinterpreted
}

// Not reported.
torch::Tensor floats(std::vector<float> &v) {
  return torch::from_blob(v.data(), {static_cast<int64_t>(v.size())});
}
torch::Tensor longs(std::vector<int64_t> &v) {
  return torch::from_blob(v.data(), {static_cast<int64_t>(v.size())}, torch::kInt64);
}
torch::Tensor bytes(uint8_t *p, int64_t n) {
  return torch::from_blob(p, {n / 4}, torch::kFloat);
}
