// Range logic shared by the CPU loop and the CUDA kernels.
//
// Everything here is plain arithmetic so that nvcc compiles it for the device
// and the host compiler compiles it for the CPU path and its unit tests; the
// CPU and the GPU then agree on what "out of range" means by construction.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define TORCHTIDY_HOST_DEVICE __host__ __device__
#else
#define TORCHTIDY_HOST_DEVICE
#endif

namespace torchtidy::range {

/// Position used for "no out-of-range value seen": larger than any position.
constexpr int64_t kNoPosition = INT64_MAX;

/// The unsigned type of the same width as an index type.
template <typename T> struct UnsignedOf;
template <> struct UnsignedOf<int32_t> {
  using type = uint32_t;
};
template <> struct UnsignedOf<int64_t> {
  using type = uint64_t;
};

/// The bound to compare an index's unsigned image with: a value v of type T
/// is in [0, bound) exactly when U(v) < unsignedBound<T>(bound). A negative v
/// wraps to at least 2^(bits-1), which is never below the result, so one
/// unsigned compare rejects both negative and too-large values. A bound past
/// T's range (int32 indices, size > INT32_MAX) admits every non-negative T.
/// Requires bound >= 0 (checked on the host).
template <typename T>
TORCHTIDY_HOST_DEVICE constexpr typename UnsignedOf<T>::type
unsignedBound(int64_t bound) {
  using U = typename UnsignedOf<T>::type;
  return static_cast<uint64_t>(bound) >
                 static_cast<uint64_t>(static_cast<U>(~U(0)) >> 1)
             ? static_cast<U>(static_cast<U>(~U(0)) >> 1) + 1
             : static_cast<U>(bound);
}

/// True when `value` lies in [0, bound), given ub = unsignedBound<T>(bound).
template <typename T>
TORCHTIDY_HOST_DEVICE constexpr bool
inRangeUnsigned(T value, typename UnsignedOf<T>::type ub) {
  return static_cast<typename UnsignedOf<T>::type>(value) < ub;
}

/// True when `value` lies in [0, bound). Requires bound >= 0.
template <typename T>
TORCHTIDY_HOST_DEVICE constexpr bool inRange(T value, int64_t bound) {
  return inRangeUnsigned(value, unsignedBound<T>(bound));
}

/// How many of values[0, count) are outside [0, bound). Branch-free, so the
/// CPU loop vectorises; `count` must fit in uint32 (callers use short blocks).
template <typename T>
TORCHTIDY_HOST_DEVICE uint32_t countOutOfRange(const T *values, int64_t count,
                                               int64_t bound) {
  const typename UnsignedOf<T>::type ub = unsignedBound<T>(bound);
  uint32_t bad = 0;
  for (int64_t i = 0; i < count; ++i)
    bad += inRangeUnsigned(values[i], ub) ? 0U : 1U;
  return bad;
}

/// What one pass over (part of) an index buffer found.
struct Summary {
  uint64_t badCount = 0;
  int64_t firstPosition = kNoPosition;
};

/// Combines the summaries of two disjoint parts of the buffer; associative
/// and commutative, so chunks and blocks may be merged in any order.
TORCHTIDY_HOST_DEVICE inline Summary merge(Summary a, Summary b) {
  Summary out;
  out.badCount = a.badCount + b.badCount;
  out.firstPosition =
      a.firstPosition < b.firstPosition ? a.firstPosition : b.firstPosition;
  return out;
}

/// Scans values[0, count) whose first element sits at `basePosition` in the
/// whole buffer.
template <typename T>
TORCHTIDY_HOST_DEVICE Summary scan(const T *values, int64_t count,
                                   int64_t basePosition, int64_t bound) {
  Summary out;
  for (int64_t i = 0; i < count; ++i) {
    if (!inRange(values[i], bound)) {
      ++out.badCount;
      if (out.firstPosition == kNoPosition)
        out.firstPosition = basePosition + i;
    }
  }
  return out;
}

/// How a buffer splits into an unaligned scalar head, a body of aligned
/// vectors of `vectorBytes`, and a scalar tail. The kernel loads the body with
/// one wide load per vector; head and tail are a few scalars at most.
struct VectorSplit {
  int64_t head = 0;      ///< scalar elements before the first aligned vector
  int64_t vectors = 0;   ///< whole vectors in the body
  int64_t perVector = 1; ///< elements per vector
  int64_t tailBegin = 0; ///< first element after the body
  int64_t tail = 0;      ///< scalar elements after the body
};

/// Splits `count` elements of `elementBytes` each that start at address
/// `address`. When the address is not a multiple of the element size (never
/// for a tensor's storage), everything goes to the scalar head.
TORCHTIDY_HOST_DEVICE inline VectorSplit splitForVectors(uint64_t address,
                                                         int64_t count,
                                                         int64_t elementBytes,
                                                         int64_t vectorBytes) {
  VectorSplit s;
  s.perVector = vectorBytes / elementBytes;
  if (count <= 0)
    return s;
  if (s.perVector <= 1 || address % static_cast<uint64_t>(elementBytes) != 0) {
    s.head = count;
    s.tailBegin = count;
    return s;
  }
  const uint64_t misalign = address % static_cast<uint64_t>(vectorBytes);
  int64_t head = misalign == 0
                     ? 0
                     : static_cast<int64_t>(
                           (static_cast<uint64_t>(vectorBytes) - misalign) /
                           static_cast<uint64_t>(elementBytes));
  if (head > count)
    head = count;
  s.head = head;
  s.vectors = (count - head) / s.perVector;
  s.tailBegin = head + s.vectors * s.perVector;
  s.tail = count - s.tailBegin;
  return s;
}

/// Number of blocks for a grid-stride loop over `work` items with `threads`
/// threads per block: enough to fill the device (`maxResidentBlocks`), never
/// more than the work needs, at least one.
TORCHTIDY_HOST_DEVICE inline int64_t gridBlocks(int64_t work, int64_t threads,
                                                int64_t maxResidentBlocks) {
  int64_t needed = (work + threads - 1) / threads;
  if (needed < 1)
    needed = 1;
  if (maxResidentBlocks < 1)
    maxResidentBlocks = 1;
  return needed < maxResidentBlocks ? needed : maxResidentBlocks;
}

} // namespace torchtidy::range
