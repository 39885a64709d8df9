//===--- RunSummary.h - the line that ends every run ------------*- C++ -*-===//
//
// Every run of torch-tidy that analyses files ends with one line on stderr:
//   torch-tidy: 20 files analysed; 69 findings (libtorch-unchecked-index: 40,
//   ...); 12.3 s; results cache: 18 hits, 2 misses
// (one line), from a project run (ProjectRunner.h) and from a run over files
// named on the command line alike. It goes to stderr so that stdout stays
// clang-tidy's, and a build that runs torch-tidy as CMAKE_CXX_CLANG_TIDY
// (which shows the tool's stderr only when it fails) stays quiet; it is the
// one line whose text changes between identical runs (its time, its cache
// counts), see docs/ci.md.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_TOOLS_DRIVER_RUNSUMMARY_H
#define TORCHTIDY_TOOLS_DRIVER_RUNSUMMARY_H

#include "FastRun.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace torchtidy::driver {

struct RunSummary {
  unsigned Files = 0;
  /// What follows "N files analysed": the shard, files skipped and why.
  std::vector<std::string> Qualifiers;
  std::map<std::string, unsigned> FindingsByCheck;
  unsigned CompilerErrors = 0;  ///< error diagnostics (one process)
  unsigned FilesWithErrors = 0; ///< files that did not compile (workers)
  unsigned Crashes = 0; ///< workers that crashed or ended without findings
  double Seconds = 0;
  unsigned ResultsHits = 0, ResultsMisses = 0;
};

/// The summary line, without its newline.
std::string formatSummary(const RunSummary &S);

/// A worker of a project run writes what it did here (its cache hits) for
/// the runner's summary; readWorkerReport adds a report to \p Into.
void writeWorkerReport(llvm::StringRef Path, const FastRunSummary &S);
void readWorkerReport(llvm::StringRef Path, RunSummary &Into);
/// The file's summary for the project (ProjectSummaries.h) in a worker's
/// report, as JSON text; "" when it has none.
std::string readWorkerSummary(llvm::StringRef Path);

} // namespace torchtidy::driver

#endif
