#pragma once
#include <cstdint>

// Defined in kernels.cu: each passes its pointers to a kernel launch on
// the current stream.
void scale_launcher(float *x, int64_t n);
void gather_launcher(const float *table, const int64_t *ids, float *out,
                     int64_t n);
// Takes a pointer it never gives a kernel.
void fill_host(float *x, int64_t n);
