// A stand-in for the host side of nvcc's integer min/max, for the real-code
// evaluation only (projects.json: {standins}; a TU gets it with
// -include cuda_host_minmax.h). With nvcc, CUDA's crt/math_functions.hpp
// declares min(int, int) and max(int, int) __host__ __device__, so host code
// in a .cu file may call them unqualified; in clang's CUDA mode they are
// __device__ only. pointnet2-ops' cuda_utils.h calls them from host
// functions; these host overloads are all it uses.
#pragma once
#if defined(__CUDA__)
static inline __host__ int min(int a, int b) { return a < b ? a : b; }
static inline __host__ int max(int a, int b) { return a > b ? a : b; }
#endif
