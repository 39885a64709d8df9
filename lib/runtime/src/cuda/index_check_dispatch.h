// Launch layer of the CUDA index check: sizes the grid, returns early on empty
// input, launches on the given stream and checks the launch.
#pragma once

#include "index_check_layout.h"

#include <torchtidy/cuda/index_check.h>

namespace torchtidy::cuda::detail {

/// Launches the range kernel for params.count indices of `type` on `stream`
/// with at most `maxResidentBlocks` blocks. *launched says whether a kernel
/// was launched (not for an empty buffer). Returns the launch's error.
cudaError_t dispatchIndexRangeCheck(KernelParams params, IndexType type,
                                    int maxResidentBlocks, cudaStream_t stream,
                                    bool *launched);

/// Blocks of kThreadsPerBlock threads that fit on one multiprocessor.
int residentBlocksPerMultiprocessor(IndexType type);

} // namespace torchtidy::cuda::detail
