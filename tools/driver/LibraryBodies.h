//===--- LibraryBodies.h - Header bodies the parse leaves out --*- C++ -*-===//
//
// Under the traversal scope the driver's parses (a file's, and its preamble's
// PCH) leave out the function bodies of system headers that no check reads
// (isSkippableLibraryBody, torchtidy/analysis/UserCode.h).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_DRIVER_LIBRARYBODIES_H
#define TORCHTIDY_DRIVER_LIBRARYBODIES_H

#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/CompilerInstance.h"

#include <memory>

namespace torchtidy::driver {

/// Sets \p CI's SkipFunctionBodies and returns the consumer that says which
/// bodies go, counting them in \p Skipped (when given); it belongs in the
/// parse's MultiplexConsumer. The parse skips a body only where every
/// consumer agrees, and a consumer agrees to any body by default: the option
/// is never set without this consumer, so it is set here.
std::unique_ptr<clang::ASTConsumer>
libraryBodySkipper(clang::CompilerInstance &CI, unsigned *Skipped = nullptr);

} // namespace torchtidy::driver

#endif // TORCHTIDY_DRIVER_LIBRARYBODIES_H
