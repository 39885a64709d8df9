// RUN: %check_clang_tidy %s libtorch-from-blob-dtype %t -- -- %mock_torch

#include <torch/torch.h>
#include <vector>

// The program changes the default dtype: from_blob without a dtype is then
// not known to be float, and only a dtype that is given is compared.
void useDoubles() { c10::set_default_dtype(caffe2::TypeMeta::Make<double>()); }

torch::Tensor doublesAsDefault(std::vector<double> &v) {
  return torch::from_blob(v.data(), {(int64_t)v.size()});
}

torch::Tensor doublesAsFloat(std::vector<double> &v) {
  return torch::from_blob(v.data(), {(int64_t)v.size()}, torch::kFloat);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'v', whose elements are 'double' (8 bytes), as float32: the bytes are reinterpreted, so the values are wrong; use torch::kFloat64 [libtorch-from-blob-dtype]
}
