//===--- SourceText.h - Code as messages and fix-its quote it ---*- C++ -*-===//
//
// Where a diagnostic or a fix-it repeats the user's code: the text of an
// expression without its comments (`f(x, /*dim=*/1)` is quoted `f(x, 1)`),
// and with parentheses where a member access follows it (`(a * b).size(0)`).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_CHECKS_SOURCETEXT_H
#define TORCHTIDY_CHECKS_SOURCETEXT_H

#include "ClangTidyCheck.h"
#include "torchtidy/analysis/ProjectSummaries.h"
#include "torchtidy/analysis/TorchOps.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceLocation.h"

#include <string>

namespace clang::tidy::libtorch {

/// The file range of \p E's tokens (invalid when it has none: a macro body).
CharSourceRange fileRange(const Expr *E, const ASTContext &Ctx);

/// The text of fileRange(\p E) as written, comments and all; "" when the
/// range is invalid.
llvm::StringRef fileText(const Expr *E, const ASTContext &Ctx);

/// fileRange(\p E) where \p E begins and ends outside macros, for a fix-it
/// that rewrites it; invalid otherwise.
CharSourceRange writtenRange(const Expr *E, const ASTContext &Ctx);

/// The text of \p E as written, its comments removed and its whitespace
/// runs made single spaces; "" when it has no file range (a macro body).
std::string quotedText(const Expr *E, const ASTContext &Ctx);

/// quotedText(\p E), or, when all of \p E is spelled in one macro's
/// definition, its text there (without line continuations): for messages
/// about code a macro writes.
std::string quotedOrSpelledText(const Expr *E, const ASTContext &Ctx);

/// \p Text with comments removed and whitespace runs made single spaces
/// (string and character literals kept as they are).
std::string withoutComments(llvm::StringRef Text);

/// \p E, quoted, ready to have `.member` appended: in parentheses unless it
/// is a name, a call, a subscript or already parenthesised.
std::string receiverText(const Expr *E, const ASTContext &Ctx);

/// \p E needs parentheses before a `.member` access.
bool needsParensForMember(const Expr *E);

/// A call of the table's op \p N with \p Args as a fix-it writes it:
/// `device()`, `to(cuda)`.
std::string opCallText(torchtidy::op::Named N, llvm::StringRef Args = "");

/// The text of \p E exactly as written (comments kept), for a fix-it that
/// moves it; "" when it does not come from one place in a file.
std::string writtenText(const Expr *E, const ASTContext &Ctx);

/// The whitespace before \p Loc on its line, or "" when code precedes it
/// there (a fix-it inserting a line before \p Loc indents it the same).
llvm::StringRef indentationAt(SourceLocation Loc, const SourceManager &SM);

/// Where \p P, a place in a file of the project that a summary names
/// (ProjectSummaries.h), is in \p SM, which loads the file when the
/// translation unit did not include it; invalid when the file cannot be
/// read. Lines and columns past the file's end land on its end.
SourceLocation locationOf(const torchtidy::SourcePlace &P, SourceManager &SM);

/// A note of \p Check at \p P (locationOf); when that file cannot be read
/// any more, the note goes at \p Fallback and names the file and line in
/// its text.
void notePlace(ClangTidyCheck &Check, const torchtidy::SourcePlace &P,
               llvm::StringRef Text, SourceLocation Fallback,
               SourceManager &SM);

} // namespace clang::tidy::libtorch

#endif
