// RUN: %check_clang_tidy %s libtorch-kernel-unchecked-index %t -- -- %mock_torch -fopenmp

// Host loops under OpenMP: the loop is the captured statement of the
// directive, analysed as part of the function it is written in.

#include <torch/torch.h>

void gather_rows(const float *src, const int64_t *rows, float *out,
                 int64_t n, int64_t k, int64_t m) {
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = rows[i];
    for (int64_t j = 0; j < k; ++j)
      out[i * k + j] = src[r * k + j];
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'src[r * k + j]' indexes 'src' with 'r', a value read from 'rows', and nothing bounds it in a loop over raw storage
    // CHECK-MESSAGES: :[[@LINE-4]]:23: note: the index value is read here from 'rows'
  }
  // Checked against the table's rows first: silent.
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = rows[i];
    if (r < 0 || r >= m)
      continue;
    for (int64_t j = 0; j < k; ++j)
      out[i * k + j] = src[r * k + j];
  }
}

torch::Tensor gather_op(const torch::Tensor &src, const torch::Tensor &rows) {
  auto out = torch::empty({rows.numel(), src.size(1)}, src.options());
  gather_rows(src.data_ptr<float>(), rows.data_ptr<int64_t>(),
              out.data_ptr<float>(), rows.numel(), src.size(1), src.size(0));
  // CHECK-MESSAGES: :[[@LINE-2]]:38: note: the call passes 'rows.data_ptr<int64_t>()' for it
  return out;
}
