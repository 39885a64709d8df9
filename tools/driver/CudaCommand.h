//===--- CudaCommand.h - .cu entries of compile_commands.json ---*- C++ -*-===//
//
// clang-tidy parses a `.cu` file with clang's CUDA mode, host side only (one
// compile job). An entry compiled by nvcc has nvcc's flags, which clang does
// not take: it is turned into a clang command with the flags of
// lib/cuda-compat/README.md, keeping what names the sources (-I, -isystem,
// -D, -U, -include, -std). An entry compiled by clang in CUDA mode gets
// --cuda-host-only.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_DRIVER_CUDACOMMAND_H
#define TORCHTIDY_DRIVER_CUDACOMMAND_H

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace torchtidy::driver {

struct CudaParseOptions {
  /// The CUDA toolkit clang parses against.
  std::string CudaPath = "/usr/local/cuda";
  /// lib/cuda-compat/include (its stand-ins go first on the system path);
  /// empty when not found.
  std::string CompatInclude;
  /// --cuda-gpu-arch for the parse (it only selects the __CUDA_ARCH__ of the
  /// device side, which is not parsed).
  std::string GpuArch = "sm_80";
};

/// The compiler of \p CommandLine is nvcc.
bool isNvccCommand(llvm::ArrayRef<std::string> CommandLine);

/// The clang command that parses what the nvcc command \p Nvcc compiles.
std::vector<std::string> nvccToClang(llvm::ArrayRef<std::string> Nvcc,
                                     const CudaParseOptions &O);

/// Rewrites nvcc commands (nvccToClang) and adds --cuda-host-only to clang
/// CUDA commands; leaves every other command as it is.
clang::tooling::ArgumentsAdjuster
cudaArgumentsAdjuster(const CudaParseOptions &Options);

/// The stand-in headers for \p Argv0's torch-tidy: share/torch-tidy/
/// cuda-compat/include beside an installed binary, else the source tree's
/// (a build tree), else "".
std::string findCudaCompatInclude(llvm::StringRef Argv0);

} // namespace torchtidy::driver

#endif
