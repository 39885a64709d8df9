// torch-tidy cuda-compat stand-in for texture_fetch_functions.h.
//
// clang's CUDA runtime wrapper (__clang_cuda_runtime_wrapper.h) includes this
// header unconditionally. CUDA 12 removed it together with the texture
// reference API, so with CUDA 12 or 13 every .cu file fails to parse. Texture
// objects (cudaTextureObject_t, tex1Dfetch<T>(obj, ...)) are declared in
// texture_indirect_functions.h, which CUDA still ships; the removed
// reference-based overloads have no replacement, so this header declares
// nothing. Only for static analysis: do not compile device code with it.
#pragma once
