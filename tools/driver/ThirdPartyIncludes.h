//===--- ThirdPartyIncludes.h - -I directories of libraries as system -----===//
//
// A LibTorch taken from a pip wheel or the libtorch zip, or an extension
// built by torch.utils.cpp_extension, reaches the compiler as plain -I
// directories (site-packages/torch/include, libtorch/include, ...), so clang
// takes <torch/torch.h> for user code: the checks would walk LibTorch's own
// code and the preamble cache would refuse a preamble of "user" headers. The
// adjuster passes such directories as -isystem, as CMake does for the
// imported Torch target.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_DRIVER_THIRDPARTYINCLUDES_H
#define TORCHTIDY_DRIVER_THIRDPARTYINCLUDES_H

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/VirtualFileSystem.h"

namespace torchtidy::driver {

/// Whether \p Dir holds the headers of a library rather than of the project:
/// LibTorch (a directory at most four levels below one with ATen/ATen.h and
/// c10/macros/Macros.h: the include root, torch/csrc/api/include, TH, THC),
/// Python (Python.h and pyconfig.h), pybind11 (pybind11/pybind11.h) or the
/// CUDA toolkit (cuda_runtime.h). A relative \p Dir is taken against \p FS's
/// working directory.
bool isThirdPartyIncludeDir(llvm::vfs::FileSystem &FS, llvm::StringRef Dir);

/// Rewrites each -I DIR (-IDIR, --include-directory[=]DIR) whose DIR is a
/// third-party include directory into -isystem DIR, in place.
clang::tooling::ArgumentsAdjuster
thirdPartyIncludesAdjuster(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS);

} // namespace torchtidy::driver

#endif
