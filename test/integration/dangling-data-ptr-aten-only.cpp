// libtorch-dangling-data-ptr's fix-it in a file of ATen alone (an op
// library's): ATen's headers declare a namespace torch (torch::jit) but no
// torch::Tensor, so the tensor the fix-it binds is an at::Tensor.
// RUN: %check_clang_tidy %s libtorch-dangling-data-ptr %t -- -- %torch_includes

#include <ATen/ATen.h>

float first(const at::Tensor &x) {
  const float *p = x.contiguous().data_ptr<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: 'data_ptr' of a temporary tensor that 'contiguous' may have freshly allocated is kept in 'p'
  // CHECK-FIXES: {{^}}  at::Tensor x_contig = x.contiguous();{{$}}
  // CHECK-FIXES-NEXT: {{^}}  const float *p = x_contig.data_ptr<float>();{{$}}
  return p[0];
}
