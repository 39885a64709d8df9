#pragma once

#include <cstdint>

namespace at {
class Tensor;
} // namespace at

namespace torchtidy_bench {
/// Sums the ids (int64); the work both variants below share.
int64_t sumIds(const at::Tensor &ids);
/// The same sum, without any check.
int64_t sumWithoutMacro(const at::Tensor &ids, int64_t bound);
/// The same sum behind TORCHTIDY_CHECK_INDEX compiled with NDEBUG.
int64_t sumWithReleaseMacro(const at::Tensor &ids, int64_t bound);
} // namespace torchtidy_bench
