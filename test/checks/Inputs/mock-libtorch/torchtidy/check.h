// Stand-in for the runtime shim's <torchtidy/check.h> (lib/runtime): the
// same macro names, so check tests can show code that the fix-its produce.
#pragma once
#include <torch/torch.h>

namespace torchtidy::detail {
void check_index(const at::Tensor &index, int64_t size, const char *expr,
                 const char *file, int line, const char *func);
void check_same_device(const at::Tensor &a, const at::Tensor &b,
                       const char *expr, const char *file, int line,
                       const char *func);
void check_on_cpu(const at::Tensor &t, const char *expr, const char *file,
                  int line, const char *func);
} // namespace torchtidy::detail

#define TORCHTIDY_CHECK_INDEX(index, size)                                     \
  ::torchtidy::detail::check_index((index), (size), #index, __FILE__,         \
                                   __LINE__, __func__)
#define TORCHTIDY_CHECK_SAME_DEVICE(a, b)                                      \
  ::torchtidy::detail::check_same_device((a), (b), #a ", " #b, __FILE__,      \
                                         __LINE__, __func__)
#define TORCHTIDY_CHECK_ON_CPU(t)                                              \
  ::torchtidy::detail::check_on_cpu((t), #t, __FILE__, __LINE__, __func__)
