//===--- FastRun.h - torch-tidy's way of running clang-tidy -----*- C++ -*-===//
//
// The driver runs clang-tidy's own main (clangTidyMain), with its analysis
// step, clang::tidy::runClangTidy, replaced at link time (--wrap, see
// tools/CMakeLists.txt) by FastRun.cpp's. That one does what clang-tidy's
// does, and when every enabled check is a libtorch-* check:
//   * limits the AST traversal of the checks to declarations outside system
//     headers (ASTContext::setTraversalScope, as clangd does), so the
//     matchers never visit the LibTorch headers;
//   * serves each file's leading system includes from the preamble cache
//     (PreambleCache.h);
//   * replays the findings of a file that has not changed since a run with
//     the same key from the results cache (ResultsCache.h).
// With other checks enabled it behaves as clang-tidy: upstream checks may
// look into system headers, at every include, or at other files' options.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_TOOLS_DRIVER_FASTRUN_H
#define TORCHTIDY_TOOLS_DRIVER_FASTRUN_H

#include "CacheDirectory.h"

#include <cstdint>
#include <map>
#include <string>

namespace torchtidy::driver {

struct FastRunOptions {
  /// Where the caches live; empty: no caches.
  std::string CacheDir;
  bool PreambleCache = true;
  bool ResultsCache = true;
  /// --fix: the file must be analysed as it is, and its fixed text differs
  /// from what was analysed, so the results cache is neither read nor
  /// written.
  bool Fixing = false;
  uint64_t CacheMaxBytes = DefaultCacheMaxBytes;
  /// Traverse only declarations outside system headers.
  bool UserScope = true;
  /// ...for every check, not only when all are libtorch-* checks
  /// (--skip-system-headers).
  bool UserScopeForAllChecks = false;
  /// Say on stderr what the caches and the traversal scope do for each file.
  bool CacheVerbose = false;
  /// A project run links the files' summaries (ProjectSummaries.h) and
  /// analyses again the files they concern; a run of one file reads those
  /// the last whole-project run left in the cache directory
  /// (--no-summaries: neither).
  bool Summaries = true;
  /// This process is a worker of a project run (--worker-report).
  bool Worker = false;
  /// A worker of a project run: the linked summaries to analyse its file
  /// with (--summaries-in=FILE, written by the runner); none when empty.
  std::string SummariesIn;
};

/// Set by main before clangTidyMain runs.
FastRunOptions &fastRunOptions();

/// What the runs of clang-tidy in this process did, for the summary line.
struct FastRunSummary {
  bool Ran = false;
  unsigned Files = 0;
  unsigned ResultsHits = 0, ResultsMisses = 0;
  /// Diagnostics returned to clang-tidy's main by check, compiler errors
  /// apart.
  std::map<std::string, unsigned> FindingsByCheck;
  unsigned CompilerErrors = 0;
  /// The summary of the last file analysed, as JSON text ("" when none).
  std::string UnitSummary;
};
FastRunSummary &fastRunSummary();

} // namespace torchtidy::driver

#endif
