// torch-tidy cuda-compat stand-in for c10/cuda/impl/cuda_cmake_macros.h.
//
// PyTorch's build generates this header from cuda_cmake_macros.h.in and
// c10/cuda/CUDAMacros.h includes it, so every header under c10/cuda/ (and
// ATen/cuda/CUDAContext.h, c10/cuda/CUDAGuard.h, c10/cuda/CUDAException.h)
// needs it. Debian's libtorch-dev is built without CUDA and does not ship it.
//
// The generated file holds a single switch, C10_CUDA_BUILD_SHARED_LIBS, set
// when c10_cuda is a shared library, as in every LibTorch distribution. On
// Linux it changes nothing (CUDAMacros.h uses visibility("default") either
// way); it only selects dllexport/dllimport on Windows.
#pragma once

#ifndef C10_CUDA_BUILD_SHARED_LIBS
#define C10_CUDA_BUILD_SHARED_LIBS
#endif
