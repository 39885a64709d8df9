//===--- LaunchSpelling.h - Kernel launches as clang reads them -*- C++ -*-===//
//
// nvcc reads a kernel launch whose angle brackets are spaced apart,
// `kernel << <grid, block >> > (args)` (Visual Studio's formatter writes
// them so); clang reads `<<<` and `>>>` as one token each and does not parse
// it. The driver gives clang such CUDA files with those launches respelled
// `<<<` and `>>>`, each followed by the whitespace that was between the
// brackets, so that every other character keeps its offset, line and column
// (findings, fix-its and the results cache's records stay those of the file
// on disk).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_DRIVER_LAUNCHSPELLING_H
#define TORCHTIDY_DRIVER_LAUNCHSPELLING_H

#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <optional>
#include <string>

namespace torchtidy::driver {

/// \p Text with each spaced launch configuration's brackets written
/// `<<<`...`>>>` (of the same length); nullopt when it has none. A launch
/// is brackets spaced apart by whitespace alone (`<< <`, `< <<`, `< < <`),
/// not after `operator` (`operator<< <T>` names a template), closed at the
/// same nesting of parentheses, brackets and braces before the statement
/// ends; comments and literals are not read.
std::optional<std::string> respellSpacedLaunches(llvm::StringRef Text);

/// Whether \p Path names a CUDA source or header (.cu, .cuh).
bool isCudaSourceName(llvm::StringRef Path);

/// \p Base, with the CUDA files it opens read through
/// respellSpacedLaunches.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> launchRespellingFileSystem(
    llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Base);

} // namespace torchtidy::driver

#endif // TORCHTIDY_DRIVER_LAUNCHSPELLING_H
