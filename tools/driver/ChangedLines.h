//===--- ChangedLines.h - lines a unified diff adds -------------*- C++ -*-===//
//
// `--changed-lines` reads `git diff -U0` output and reports only diagnostics
// on the lines it adds or changes, as clang-tidy-diff.py does, through
// clang-tidy's own --line-filter.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_TOOLS_DRIVER_CHANGEDLINES_H
#define TORCHTIDY_TOOLS_DRIVER_CHANGEDLINES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace torchtidy::driver {

/// Inclusive line ranges, by file path as the diff names it (without the
/// `b/` prefix). Deleted files and pure deletions contribute nothing.
using ChangedLineMap =
    std::map<std::string, std::vector<std::pair<unsigned, unsigned>>>;

/// Parses a unified diff (any context size; -U0 is what clang-tidy-diff
/// expects). Fails with a message on text that is not a diff.
llvm::Expected<ChangedLineMap> parseUnifiedDiff(llvm::StringRef Diff);

/// The JSON of clang-tidy's --line-filter for \p Lines. clang-tidy matches
/// each name as a suffix of the file's path.
std::string lineFilterJSON(const ChangedLineMap &Lines);

/// Whether \p Path (absolute or not) is one of the diff's files.
bool isChangedFile(const ChangedLineMap &Lines, llvm::StringRef Path);

} // namespace torchtidy::driver

#endif
