// Memory layout shared by the kernels (index_check_kernels.cuh) and the host
// entry point (index_check.cpp). Plain structs: the host allocates them, the
// kernels fill them.
#pragma once

#include "../index_range.h"

#include <cstdint>

namespace torchtidy::cuda::detail {

/// Cross-block reduction state of one launch, in device memory. The last
/// block to finish resets it, so a slot is ready for the next launch without
/// a memset; the host hands slots out round-robin from a per-device pool.
struct ReductionSlot {
  unsigned long long badCount;
  long long firstPosition;
  unsigned int blocksDone;
  unsigned int unused;
};

constexpr int kReductionSlots = 256;

/// The result of a synchronous check, written by the last block straight into
/// mapped pinned host memory: the only thing read back.
struct SyncRecord {
  unsigned long long badCount;
  long long firstPosition;
  long long firstValue;
};

/// One posted failure of a deferred check. `sequence` is written last (after a
/// system fence) as ticket + 1, so the host knows the record is complete.
struct MailboxRecord {
  unsigned int siteId;
  int device;
  long long position;
  long long value;
  long long bound;
  unsigned long long badCount;
  unsigned long long sequence;
};

constexpr int kMailboxCapacity = 16;

/// Per-device ring of failures in mapped pinned host memory: the device takes
/// tickets, the host reads records in ticket order without synchronising.
struct Mailbox {
  unsigned long long tickets;
  MailboxRecord records[kMailboxCapacity];
};

/// Everything one launch needs.
struct KernelParams {
  const void *indices;
  int64_t count;
  int64_t bound;
  range::VectorSplit split;
  ReductionSlot *slot;
  SyncRecord *syncRecord; ///< device view of the pinned record, or null
  Mailbox *mailbox;       ///< device view of the mailbox, or null
  unsigned int siteId;
  int device;
};

} // namespace torchtidy::cuda::detail
