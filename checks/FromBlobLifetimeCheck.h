//===--- FromBlobLifetimeCheck.h - torch-tidy -------------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_FROMBLOBLIFETIMECHECK_H
#define TORCHTIDY_CHECKS_FROMBLOBLIFETIMECHECK_H

#include "UserCodeCheck.h"
#include "torchtidy/analysis/PointerLifetime.h"

namespace clang::tidy::libtorch {

/// Finds tensors made by from_blob (without a deleter) over a local array,
/// std::vector, std::string, std::array or variable, or over a buffer freed
/// with delete[] or free, that outlive that memory: returned, stored in a
/// member, an out-parameter, the module, a container or an Example that
/// escapes, or used after the buffer is gone, with no copy in between.
///
/// For the user-facing documentation see:
/// docs/checks/from-blob-lifetime.md
class FromBlobLifetimeCheck : public UserCodeCheck {
public:
  FromBlobLifetimeCheck(StringRef Name, ClangTidyContext *Context)
      : UserCodeCheck(Name, Context) {}

private:
  void checkFunction(const FunctionDecl *FD, ASTContext &Ctx) override;
  void report(const torchtidy::BlobEscape &E, ASTContext &Ctx);
  /// The buffer of a temporary (`img.clone().data`), gone after its
  /// statement.
  void reportTemporary(const torchtidy::BlobEscape &E, ASTContext &Ctx);
  void addCloneFix(DiagnosticBuilder &Diag, const CallExpr *Call,
                   const ASTContext &Ctx);
};

} // namespace clang::tidy::libtorch

#endif
