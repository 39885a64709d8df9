//===--- FastRun.h - torch-tidy's way of running clang-tidy -----*- C++ -*-===//
//
// The driver runs clang-tidy's own main (clangTidyMain), with its analysis
// step, clang::tidy::runClangTidy, replaced at link time (--wrap, see
// tools/driver/CMakeLists.txt) by FastRun.cpp's. That one does what
// clang-tidy's does, and when every enabled check is a libtorch-* check:
//   * limits the AST traversal of the checks to declarations outside system
//     headers (ASTContext::setTraversalScope, as clangd does), so the
//     matchers never visit the LibTorch headers;
//   * serves each file's leading system includes from the preamble cache
//     (PreambleCache.h).
// With other checks enabled it behaves as clang-tidy: upstream checks may
// look into system headers or at every include.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_TOOLS_DRIVER_FASTRUN_H
#define TORCHTIDY_TOOLS_DRIVER_FASTRUN_H

#include <string>

namespace torchtidy::driver {

struct FastRunOptions {
  /// Where the preamble cache lives; empty: no cache.
  std::string CacheDir;
  /// Traverse only declarations outside system headers.
  bool UserScope = true;
  /// Say on stderr what the cache does for each file.
  bool CacheVerbose = false;
};

/// Set by main before clangTidyMain runs.
FastRunOptions &fastRunOptions();

} // namespace torchtidy::driver

#endif
