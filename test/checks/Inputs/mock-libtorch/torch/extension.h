// Stand-in for <torch/extension.h>: LibTorch plus the Python bindings of a
// PyTorch extension (torch.utils.cpp_extension).
#pragma once
#include <torch/torch.h>
