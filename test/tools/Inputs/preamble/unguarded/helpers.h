// A system header with neither an include guard nor #pragma once: a second
// #include of it redefines its function.
#include <torch/torch.h>
inline int twice(int x) { return 2 * x; }
