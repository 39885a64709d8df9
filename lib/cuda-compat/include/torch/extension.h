// torch-tidy cuda-compat stand-in for <torch/extension.h>.
//
// The real header is <torch/all.h> plus <torch/python.h>, and the latter
// needs Python.h and pybind11, which Debian's libtorch-dev does not provide.
// This keeps the C++ half unchanged and replaces the Python half by the
// minimal pybind11 stand-in next to it, so extension sources (.cpp and .cu)
// parse for static analysis. Put this directory first on the include path
// (-isystem .../lib/cuda-compat/include). Not for building extensions.
#pragma once

#include <torch/all.h>

#include <pybind11/pybind11.h>

namespace py = pybind11;

// torch.utils.cpp_extension passes -DTORCH_EXTENSION_NAME=<name>; a compile
// command without it still parses.
#ifndef TORCH_EXTENSION_NAME
#define TORCH_EXTENSION_NAME torch_tidy_extension
#endif
