// Compiled as a release build of user code: NDEBUG, no TORCHTIDY_ENABLE_CHECKS.
#ifndef NDEBUG
#define NDEBUG
#endif
#undef TORCHTIDY_ENABLE_CHECKS
#include <torchtidy/check.h>

#include "release_macro.h"

#include <ATen/core/Tensor.h>

static_assert(TORCHTIDY_CHECKS_ENABLED == 0,
              "this file measures the release macro");

namespace torchtidy_bench {

int64_t sumIds(const at::Tensor &ids) {
  const int64_t *data = ids.data_ptr<int64_t>();
  int64_t sum = 0;
  for (int64_t i = 0, n = ids.numel(); i < n; ++i)
    sum += data[i];
  return sum;
}

int64_t sumWithoutMacro(const at::Tensor &ids, int64_t bound) {
  (void)bound;
  return sumIds(ids);
}

int64_t sumWithReleaseMacro(const at::Tensor &ids, int64_t bound) {
  // The argument would cost a clamp and a copy if it were evaluated.
  TORCHTIDY_CHECK_INDEX(ids.clamp(0, bound - 1), bound);
  return sumIds(ids);
}

} // namespace torchtidy_bench
