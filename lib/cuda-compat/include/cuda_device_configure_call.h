// torch-tidy cuda-compat stand-in: a device-side cudaConfigureCall.
//
// When clang compiles the device side of a .cu file (--cuda-device-only, or
// the device half of a full compile), Sema resolves every kernel<<<...>>>
// launch through a function named cudaConfigureCall. CUDA 12 removed that
// legacy declaration from the toolkit, so with CUDA 12 or 13 each launch is
// "use of undeclared identifier cudaConfigureCall". Include this with
// -include after the toolkit's runtime headers (clang's CUDA wrapper is
// pre-included first, so -include on the command line is late enough).
// The host side (--cuda-host-only, what clang-tidy analyses) does not need
// it: it uses __cudaPushCallConfiguration, which CUDA still declares.
// Only for static analysis: nothing defines it.
#pragma once

#if defined(__CUDA__) && defined(__CUDA_ARCH__)
extern "C" __device__ cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim,
                                                    size_t sharedMem = 0,
                                                    cudaStream_t stream = 0);
#endif
