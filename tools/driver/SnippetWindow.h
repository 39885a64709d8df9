//===--- SnippetWindow.h - correct line numbers in printed snippets -*- C++
//-*-//
//
// clang's TextDiagnostic numbers the source lines it prints under a
// diagnostic from the smallest line that any of the diagnostic's ranges
// begins on, fix-it edits included, even a range it does not print because
// it lies beyond the snippet's line limit. A fix that also inserts an
// #include at the top of the file (libtorch-unchecked-index's, or any
// upstream check's through utils::IncludeInserter) therefore numbers the
// diagnostic's own line with the include's line: `2 |` under
// model.cpp:37:12.
//
// The driver's terminal output goes through clang-tidy's handleErrors,
// replaced at link time (--wrap, tools/driver/CMakeLists.txt) by one that
// hands it, when it applies no fixes, diagnostics without the ranges and
// edits that the printer could not show anyway: those in another file, or
// more lines away from the diagnostic's line than a snippet can span. What
// is printed is otherwise the same, and --export-fixes, --sarif and the
// exit status never see the trimmed copy. With --fix the diagnostics are
// passed as they are (the edits are what gets applied), so the numbering
// bug remains there.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_TOOLS_DRIVER_SNIPPETWINDOW_H
#define TORCHTIDY_TOOLS_DRIVER_SNIPPETWINDOW_H

#include "ClangTidyDiagnosticConsumer.h"

#include "llvm/Support/VirtualFileSystem.h"

#include <vector>

namespace torchtidy::driver {

/// Copies of \p Errors without the ranges and fix-it edits (of the
/// diagnostic and of each note) that lie in another file than the
/// diagnostic's, or entirely more than \p LineLimit - 1 lines away from its
/// line: no snippet of at most \p LineLimit lines that shows the
/// diagnostic's line can show them. File contents come from \p FS.
std::vector<clang::tidy::ClangTidyError>
withoutUnprintableRanges(llvm::ArrayRef<clang::tidy::ClangTidyError> Errors,
                         llvm::vfs::FileSystem &FS, unsigned LineLimit);

} // namespace torchtidy::driver

#endif
