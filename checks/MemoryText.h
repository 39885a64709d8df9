//===--- MemoryText.h - Wording of the memory checks ------------*- C++ -*-===//
//
// Shared wording of libtorch-dangling-data-ptr and libtorch-from-blob-*:
// where a pointer or a tensor is kept, what a buffer is, and the name a
// fix-it gives a tensor it binds.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_CHECKS_MEMORYTEXT_H
#define TORCHTIDY_CHECKS_MEMORYTEXT_H

#include "torchtidy/analysis/PointerLifetime.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

#include <string>

namespace clang::tidy::libtorch {

/// "kept in 'p'", "stored in member 'ptr_'", "returned", "registered in the
/// module", with what holds it on the way: " (wrapped by from_blob)".
std::string describeStore(const torchtidy::Store &S, const ASTContext &Ctx);

/// "a local array", "a local 'std::vector<float>'", "a local variable",
/// "a parameter passed by value", "memory that 'buf' points to".
std::string describeBuffer(const torchtidy::BufferOrigin &B,
                           const ASTContext &Ctx);

/// The name of the op a call or operator is: "to", "contiguous", "add".
std::string opName(const Expr *Op);

/// \p Wanted, or \p Wanted with a number appended, so that no parameter,
/// local or field of \p FD's class has that name.
std::string freshName(std::string Wanted, const FunctionDecl *FD);

/// How the code names the tensor type: torch::Tensor, or at::Tensor where
/// `torch::Tensor` names nothing in the translation unit (a file of ATen
/// alone).
std::string tensorTypeSpelling(const ASTContext &Ctx);

} // namespace clang::tidy::libtorch

#endif
