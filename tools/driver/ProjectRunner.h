//===--- ProjectRunner.h - torch-tidy over many files -----------*- C++ -*-===//
//
// `torch-tidy -p build` with no files analyses every file of the
// compilation database in parallel worker processes (each one this same
// driver in plain clang-tidy mode), prints each file's output in file order,
// shows progress on a terminal, merges the exported diagnostics, and writes
// SARIF and the summary.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_TOOLS_DRIVER_PROJECTRUNNER_H
#define TORCHTIDY_TOOLS_DRIVER_PROJECTRUNNER_H

#include "ChangedLines.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace torchtidy::driver {

/// Exit status of the driver (documented in docs/ci.md).
enum ExitStatus { ExitClean = 0, ExitFindingsAsErrors = 1, ExitFailure = 2 };

struct ProjectOptions {
  std::string Self;                      ///< this executable
  std::string BuildPath;                 ///< -p
  std::vector<std::string> Files;        ///< explicit files, else the DB's
  std::vector<std::string> TidyArgs;     ///< passed to every worker
  std::vector<std::string> CompilerArgs; ///< "--" and what follows
  unsigned Jobs = 1;
  unsigned ShardIndex = 1, ShardCount = 1; ///< --shard=i/n, 1-based
  std::optional<ChangedLineMap> Changed;   ///< --changed-lines
  std::string ExportFixes;                 ///< the user's --export-fixes
  std::string Sarif;                       ///< --sarif
  std::string SarifDocsBase;
  std::string SourceRoot; ///< for relative SARIF paths
  bool Progress = false;
  /// Link the files' summaries and analyse again the files they concern
  /// (docs/summaries.md); --no-summaries turns it off.
  bool LinkSummaries = true;
  /// Where the whole project's summaries go for runs of one file (the
  /// cache directory); none when empty.
  std::string CacheDir;
  /// When the run began, for the summary's time.
  std::chrono::steady_clock::time_point Started =
      std::chrono::steady_clock::now();
};

/// Splits \p Files (already sorted) into shards deterministically: file k
/// (0-based) goes to shard k % n + 1.
std::vector<std::string> selectShard(const std::vector<std::string> &Files,
                                     unsigned Index, unsigned Count);

int runProject(ProjectOptions Options);

} // namespace torchtidy::driver

#endif
