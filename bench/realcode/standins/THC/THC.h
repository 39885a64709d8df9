// A stand-in for PyTorch's legacy <THC/THC.h> (removed from LibTorch in 1.11),
// for the real-code evaluation only (projects.json: {standins}); never build
// anything with it. sparse-blocks includes it in every TU and uses only
// THCudaCheck, declared here as THC's THCGeneral.h declared it.
#pragma once
#include <cuda_runtime_api.h>

void __THCudaCheck(cudaError_t err, const char *file, const int line);
#define THCudaCheck(err) __THCudaCheck(err, __FILE__, __LINE__)
