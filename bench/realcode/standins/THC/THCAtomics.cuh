// A stand-in for PyTorch's legacy <THC/THCAtomics.cuh> (removed from LibTorch
// in 1.11), for the real-code evaluation only (projects.json: {standins}).
// Its last versions only forwarded to ATen's atomics (gpuAtomicAdd and
// friends), which LibTorch 1.13 still ships; so does this.
#pragma once
#include <ATen/cuda/Atomic.cuh>
