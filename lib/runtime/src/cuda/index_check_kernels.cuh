// Kernels only: the range check of an index buffer. Grid sizing, the early
// return on empty input and launch checks live in index_check_dispatch.cu.
#pragma once

#include "index_check_layout.h"

#include <climits>

namespace torchtidy {
namespace cuda {
namespace detail {

constexpr int kThreadsPerBlock = 256;
constexpr int kVectorBytes = 16;

/// One 16-byte load: 4 int32 or 2 int64 indices.
template <typename T> struct alignas(kVectorBytes) IndexVector {
  T v[kVectorBytes / sizeof(T)];
};

__device__ inline void noteBad(range::Summary &s, int64_t position) {
  ++s.badCount;
  if (position < s.firstPosition)
    s.firstPosition = position;
}

__device__ inline range::Summary warpReduce(range::Summary s) {
  for (int offset = 16; offset > 0; offset /= 2) {
    range::Summary other;
    other.badCount = __shfl_down_sync(0xffffffffu, s.badCount, offset);
    other.firstPosition =
        __shfl_down_sync(0xffffffffu, s.firstPosition, offset);
    s = range::merge(s, other);
  }
  return s;
}

/// Summary of the whole block, valid in thread 0.
__device__ inline range::Summary blockReduce(range::Summary s) {
  __shared__ unsigned long long warpBad[kThreadsPerBlock / 32];
  __shared__ long long warpFirst[kThreadsPerBlock / 32];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  s = warpReduce(s);
  if (lane == 0) {
    warpBad[warp] = s.badCount;
    warpFirst[warp] = s.firstPosition;
  }
  __syncthreads();
  if (warp == 0) {
    range::Summary w;
    if (lane < kThreadsPerBlock / 32) {
      w.badCount = warpBad[lane];
      w.firstPosition = warpFirst[lane];
    }
    s = warpReduce(w);
  }
  return s;
}

/// Called by thread 0 of the last block: the whole buffer has been seen.
template <typename T>
__device__ void publishResult(const KernelParams &p, const T *indices) {
  volatile ReductionSlot *slot = p.slot;
  const unsigned long long bad = slot->badCount;
  const long long first = slot->firstPosition;
  const long long value = bad ? static_cast<long long>(indices[first]) : 0;

  // Ready for the next launch that draws this slot.
  slot->badCount = 0;
  slot->firstPosition = LLONG_MAX;
  slot->blocksDone = 0;
  __threadfence();

  if (p.syncRecord) {
    volatile SyncRecord *out = p.syncRecord;
    out->badCount = bad;
    out->firstPosition = bad ? first : -1;
    out->firstValue = value;
    __threadfence_system();
  }
  if (p.mailbox && bad) {
    const unsigned long long ticket = atomicAdd(&p.mailbox->tickets, 1ull);
    volatile MailboxRecord *r = &p.mailbox->records[ticket % kMailboxCapacity];
    r->siteId = p.siteId;
    r->device = p.device;
    r->position = first;
    r->value = value;
    r->bound = p.bound;
    r->badCount = bad;
    __threadfence_system();
    r->sequence = ticket + 1;
    __threadfence_system();
  }
}

/// One pass over indices[0, count): aligned 16-byte loads over the body in a
/// grid-stride loop, scalars for the unaligned head and the tail, a block
/// reduction, then one atomicAdd (count) and one atomicMin (first position)
/// per block. The last block to finish publishes the result.
template <typename T>
__global__ void __launch_bounds__(kThreadsPerBlock)
    indexRangeKernel(KernelParams p) {
  const T *indices = static_cast<const T *>(p.indices);
  const int64_t perVector = p.split.perVector;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid =
      static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;

  const typename range::UnsignedOf<T>::type ub =
      range::unsignedBound<T>(p.bound);
  range::Summary local;
  const IndexVector<T> *body =
      reinterpret_cast<const IndexVector<T> *>(indices + p.split.head);
  for (int64_t v = tid; v < p.split.vectors; v += stride) {
    const IndexVector<T> x = body[v];
#pragma unroll
    for (int k = 0; k < static_cast<int>(kVectorBytes / sizeof(T)); ++k)
      if (!range::inRangeUnsigned(x.v[k], ub))
        noteBad(local, p.split.head + v * perVector + k);
  }
  const int64_t scalars = p.split.head + p.split.tail;
  for (int64_t s = tid; s < scalars; s += stride) {
    const int64_t position =
        s < p.split.head ? s : p.split.tailBegin + (s - p.split.head);
    if (!range::inRangeUnsigned(indices[position], ub))
      noteBad(local, position);
  }

  const range::Summary block = blockReduce(local);
  __shared__ bool isLastBlock;
  if (threadIdx.x == 0) {
    if (block.badCount) {
      atomicAdd(&p.slot->badCount,
                static_cast<unsigned long long>(block.badCount));
      atomicMin(&p.slot->firstPosition,
                static_cast<long long>(block.firstPosition));
    }
    __threadfence();
    const unsigned int done = atomicAdd(&p.slot->blocksDone, 1u);
    isLastBlock = done == gridDim.x - 1;
  }
  __syncthreads();
  if (isLastBlock && threadIdx.x == 0) {
    __threadfence();
    publishResult(p, indices);
  }
}

} // namespace detail
} // namespace cuda
} // namespace torchtidy
