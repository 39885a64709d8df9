// Declarations shared by the runtime's sources (not installed).
#pragma once

#include <torchtidy/check.h>

#include <c10/util/ArrayRef.h>

#include <cstdint>
#include <string>
#include <vector>

namespace torchtidy::detail {

/// "TORCHTIDY_CHECK_INDEX(ids, n) failed at file:line in function()".
std::string describeSite(const Site &site);
/// The user's site as c10 records it, so what() says "raised from" there.
c10::SourceLocation sourceLocation(const Site &site);

/// A small id for `site`, stable for the process; 0 is never used.
uint32_t siteId(const Site &site);
/// The site registered under `id`, or a Site naming an unknown site.
Site siteById(uint32_t id);

/// Builds the message of an out-of-range index. `shape` (may be empty) turns
/// the flat position into coordinates.
std::string indexErrorMessage(const Site &site, c10::IntArrayRef shape,
                              int64_t position, int64_t value, int64_t bound,
                              uint64_t badCount, int64_t count);

[[noreturn]] void throwIndexError(const Site &site, c10::IntArrayRef shape,
                                  int64_t position, int64_t value,
                                  int64_t bound, uint64_t badCount,
                                  int64_t count);

/// A failure found by a deferred CUDA check and not yet reported.
struct PendingFailure {
  uint32_t siteId = 0;
  int device = 0;
  int64_t position = 0;
  int64_t value = 0;
  int64_t bound = 0;
  uint64_t badCount = 0;
};

/// Queues a failure for the next check, flush() or exit. The CUDA mailbox
/// drains into this queue; tests feed it directly.
void enqueueDeferredFailure(const PendingFailure &failure);
/// Moves what the CUDA mailbox holds into the queue (no GPU sync), then throws
/// the queued failures, if any, reported at `current`.
void reportDeferredFailures(const Site &current);
/// Records that a deferred CUDA check was launched: from now on checks poll
/// the mailbox, and exit reports what is left.
void noteDeferredLaunch();
/// True when a check must poll for deferred failures.
bool deferredFailuresPossible();

/// Runs at the start of every check: polls the deferred failures and says
/// whether the check should run at all (false in Off mode).
bool beginCheck(const Site &site);

/// The CUDA path of checkIndex (check_index_cuda.cpp); `index` is contiguous.
void checkIndexOnCuda(const at::Tensor &index, int64_t size, const Site &site);

/// "cpu", "cuda:0".
std::string deviceName(const at::Tensor &tensor);

} // namespace torchtidy::detail
